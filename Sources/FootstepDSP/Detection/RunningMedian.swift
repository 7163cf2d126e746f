/// The median (and any other quantile) of the last `window` values, updated
/// in O(window) per value without allocation.
struct RunningMedian {
    private var sorted: [Double]
    private var fifo: [Double]
    private var marks: [Bool]
    private var next = 0
    private(set) var count = 0
    /// How many values in the window were pushed `marked`.
    private(set) var markedCount = 0

    init(window: Int) {
        sorted = []
        sorted.reserveCapacity(window)
        fifo = [Double](repeating: 0, count: window)
        marks = [Bool](repeating: false, count: window)
    }

    /// The number of values the window holds when full.
    var window: Int { fifo.count }

    /// Adds `value`, dropping the oldest once the window is full. `marked`
    /// values are counted (`markedCount`) while they are in the window.
    mutating func push(_ value: Double, marked: Bool = false) {
        if count == fifo.count {
            let old = fifo[next]
            if let index = indexOf(old) { sorted.remove(at: index) }
            if marks[next] { markedCount -= 1 }
        } else {
            count += 1
        }
        fifo[next] = value
        marks[next] = marked
        if marked { markedCount += 1 }
        next = (next + 1) % fifo.count
        sorted.insert(value, at: insertionIndex(value))
    }

    /// The q-quantile (0...1) of the window, or `fallback` when empty.
    func quantile(_ q: Double, fallback: Double = 0) -> Double {
        guard !sorted.isEmpty else { return fallback }
        let position = Int((q * Double(sorted.count - 1)).rounded())
        return sorted[position]
    }

    private func insertionIndex(_ value: Double) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private func indexOf(_ value: Double) -> Int? {
        let index = insertionIndex(value)
        return index < sorted.count && sorted[index] == value ? index : nil
    }
}
