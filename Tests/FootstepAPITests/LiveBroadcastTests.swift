import FootstepAPI
import Foundation
import Synchronization
import Testing

@Suite struct LiveBroadcastTests {
    /// Subscribers whose consuming tasks are cancelled while a publisher
    /// yields to them. `publish` once yielded under the broadcast's lock while
    /// a cancellation, holding the task's status lock, ran `onTermination`,
    /// which takes the broadcast's lock: each waited for the other (a CI run
    /// hung there). The cancelling and publishing run on their own threads, so
    /// a hang is reported as a failure instead of stopping the suite.
    @Test func cancellingSubscribersWhilePublishingDoesNotDeadlock() throws {
        let broadcast = LiveBroadcast<Int>(maximumSubscribers: 64, bufferSize: 4)
        let publishing = Atomic<Bool>(true)
        let publisherDone = DispatchSemaphore(value: 0)
        let publisher = Thread {
            var value = 0
            while publishing.load(ordering: .relaxed) {
                broadcast.publish(value)
                value += 1
            }
            publisherDone.signal()
        }
        publisher.start()

        let cancellerDone = DispatchSemaphore(value: 0)
        let canceller = Thread {
            for _ in 0..<4000 {
                guard let stream = broadcast.subscribe() else { continue }
                let consumer = Task { for await _ in stream {} }
                usleep(100)
                consumer.cancel()
            }
            cancellerDone.signal()
        }
        canceller.start()

        #expect(cancellerDone.wait(timeout: .now() + 60) == .success, "cancelling subscribers hung")
        publishing.store(false, ordering: .relaxed)
        #expect(publisherDone.wait(timeout: .now() + 10) == .success, "the publisher hung")
    }

    /// A subscriber that stops reading is dropped once its buffer is full;
    /// the others keep receiving.
    @Test func aLaggingSubscriberIsDroppedAndTheOthersKeepTheirValues() async throws {
        let broadcast = LiveBroadcast<Int>(maximumSubscribers: 4, bufferSize: 2)
        let lagging = try #require(broadcast.subscribe())
        let reading = try #require(broadcast.subscribe())
        var iterator = reading.makeAsyncIterator()
        var received: [Int] = []
        for value in 0..<4 {
            broadcast.publish(value)
            received.append(try #require(await iterator.next()))
        }
        #expect(received == [0, 1, 2, 3])
        #expect(broadcast.subscriberCount == 1)
        var dropped: [Int] = []
        for await value in lagging { dropped.append(value) }
        #expect(dropped == [0, 1], "the lagging stream ends after its buffer")
    }
}
