extension Array where Element == Double {
    /// Sorts in place by insertion: for the few hundred values bout typing
    /// sorts, without the buffer the standard library's sort allocates.
    mutating func insertionSort() {
        guard count > 1 else { return }
        for i in 1..<count {
            let value = self[i]
            var j = i - 1
            while j >= 0 && self[j] > value {
                self[j + 1] = self[j]
                j -= 1
            }
            self[j + 1] = value
        }
    }
}
