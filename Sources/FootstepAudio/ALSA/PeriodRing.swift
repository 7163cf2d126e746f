import Synchronization

/// A preallocated single-producer, single-consumer ring of audio periods: the
/// hand-off from the capture thread to the analysis pipeline.
///
/// The producer never blocks and never allocates: when the ring is full the
/// period is dropped and counted in `droppedPeriods`, and the next period it
/// publishes carries the frames lost before it, so the consumer knows where
/// the stream has a hole and how long it is.
///
/// - Note: `withWritableSlot`/`commit` must be called from one producer thread,
///   `peek`/`consume` from one consumer thread.
final class PeriodRing: @unchecked Sendable {
    let periodSamples: Int
    let capacity: Int
    private let storage: UnsafeMutableBufferPointer<Float>
    private let frameCounts: UnsafeMutableBufferPointer<Int>
    /// Per slot: frames dropped between the previous published period and this one.
    private let lostBefore: UnsafeMutableBufferPointer<Int>
    /// Producer only: frames dropped since the last published period.
    private var lostSinceCommit = 0
    private let written = Atomic<Int>(0)
    private let read = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)

    init(periodSamples: Int, capacity: Int) {
        self.periodSamples = periodSamples
        self.capacity = capacity
        storage = .allocate(capacity: periodSamples * capacity)
        storage.initialize(repeating: 0)
        frameCounts = .allocate(capacity: capacity)
        frameCounts.initialize(repeating: 0)
        lostBefore = .allocate(capacity: capacity)
        lostBefore.initialize(repeating: 0)
    }

    deinit {
        storage.deallocate()
        frameCounts.deallocate()
        lostBefore.deallocate()
    }

    /// Periods dropped because the consumer fell behind. Acquiring: what the
    /// producer counted before a drop (its captured frames) is visible after it.
    var droppedPeriods: Int { dropped.load(ordering: .acquiring) }

    /// Periods waiting for the consumer.
    var pending: Int { written.load(ordering: .acquiring) - read.load(ordering: .relaxed) }

    /// Producer: the next free slot for a period of `frames` frames, or nil
    /// when full: the period is dropped, counted, and its frames are reported
    /// with the next period published.
    func nextWritableSlot(frames: Int) -> UnsafeMutableBufferPointer<Float>? {
        let w = written.load(ordering: .relaxed)
        if w - read.load(ordering: .acquiring) >= capacity {
            lostSinceCommit += frames
            dropped.add(1, ordering: .releasing)
            return nil
        }
        let start = (w % capacity) * periodSamples
        return UnsafeMutableBufferPointer(rebasing: storage[start..<(start + periodSamples)])
    }

    /// Producer: publishes the slot returned by `nextWritableSlot(frames:)` holding `frames` frames.
    func commit(frames: Int) {
        let w = written.load(ordering: .relaxed)
        frameCounts[w % capacity] = frames
        lostBefore[w % capacity] = lostSinceCommit
        lostSinceCommit = 0
        written.store(w + 1, ordering: .releasing)
    }

    /// Consumer: the oldest unread period, its frame count and the frames
    /// dropped just before it, or nil when empty.
    func peek() -> (samples: UnsafeBufferPointer<Float>, frames: Int, lostBefore: Int)? {
        let r = read.load(ordering: .relaxed)
        guard written.load(ordering: .acquiring) > r else { return nil }
        let slot = r % capacity
        let start = slot * periodSamples
        return (UnsafeBufferPointer(rebasing: storage[start..<(start + periodSamples)]), frameCounts[slot], lostBefore[slot])
    }

    /// Consumer: releases the period returned by `peek()`.
    func consume() {
        read.add(1, ordering: .releasing)
    }
}
