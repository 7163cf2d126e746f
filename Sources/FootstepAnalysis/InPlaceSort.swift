extension Array where Element == Double {
    /// Sorts in ascending order in place by heapsort: O(n log n) for the
    /// hundreds of footsteps of bout typing's last 5 minutes, without the
    /// buffer the standard library's sort allocates. (Values are not NaN.)
    mutating func sortInPlace() {
        let n = count
        guard n > 1 else { return }
        withUnsafeMutableBufferPointer { values in
            /// Moves `values[root]` down the max-heap of the first `end` values.
            func siftDown(_ root: Int, _ end: Int) {
                var parent = root
                let value = values[parent]
                while true {
                    var child = 2 * parent + 1
                    guard child < end else { break }
                    if child + 1 < end && values[child + 1] > values[child] { child += 1 }
                    guard values[child] > value else { break }
                    values[parent] = values[child]
                    parent = child
                }
                values[parent] = value
            }
            for root in stride(from: n / 2 - 1, through: 0, by: -1) { siftDown(root, n) }
            for end in stride(from: n - 1, to: 0, by: -1) {
                values.swapAt(0, end)
                siftDown(0, end)
            }
        }
    }
}
