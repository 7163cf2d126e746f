@testable import FootstepMQTT
import Testing

@Suite("Outbox window")
struct OutboxWindowTests {
    @Test func rowsLeaveOnlyWhenAcknowledgedAndAllGoAgainAfterALoss() {
        var window = OutboxWindow(capacity: 3)
        window.sent(row: 10, as: 1)
        window.sent(row: 11, as: 2)
        window.skipped(row: 12)  // its record was deleted: nothing to send
        window.sent(row: 13, as: 3)
        #expect(window.room == 0)
        #expect(window.cursor == 13)
        #expect(window.acknowledged(2) == 11)
        #expect(window.acknowledged(2) == nil)  // a duplicate PUBACK
        #expect(window.acknowledged(99) == nil)  // `online`, the state: not outbox rows
        #expect(window.room == 1)
        window.restart()
        #expect(window.cursor == 0 && window.room == 3 && window.inFlight.isEmpty)
        // An acknowledgement of a message sent before the loss removes nothing twice.
        #expect(window.acknowledged(1) == nil)
    }
}
