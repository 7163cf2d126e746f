import FootstepCollector
import Foundation
import Testing

@Suite("Chain verifier")
struct ChainVerifierTests {
    static func hash(_ n: Int64) -> String { String(repeating: String(n % 10), count: 63) + "h" }
    static func link(_ n: Int64, after previous: Int64? = nil) -> ChainVerifier.Link {
        ChainVerifier.Link(
            id: n, hash: hash(n), previousHash: n == 1 ? ChainVerifier.genesis : hash(previous ?? n - 1))
    }
    static let start = Date(timeIntervalSince1970: 1_740_866_400)

    @Test func eventsFollowFromTheGenesis() {
        var chain = ChainVerifier(hold: 60)
        #expect(chain.advance(over: [Self.link(1), Self.link(2)], bridges: [], now: Self.start) == [.follows(1), .follows(2)])
        #expect(chain.state == ChainVerifier.State(head: Self.hash(2), lastEventId: 2, verifiedFrom: 1))
        #expect(chain.isBehind(2) && !chain.isBehind(3))
    }

    @Test func anEventThatArrivesBeforeTheOnesItFollowsWaitsForThem() {
        var chain = ChainVerifier(hold: 60)
        _ = chain.advance(over: [Self.link(1), Self.link(2)], bridges: [], now: Self.start)
        // 4 arrives before 3: held, not a break.
        #expect(chain.advance(over: [Self.link(4)], bridges: [], now: Self.start.addingTimeInterval(1)) == [])
        #expect(chain.state.lastEventId == 2 && chain.state.holeSince == Self.start.addingTimeInterval(1))
        // Still waiting within the hold: the hole keeps its age.
        #expect(chain.advance(over: [Self.link(4)], bridges: [], now: Self.start.addingTimeInterval(59)) == [])
        #expect(chain.state.holeSince == Self.start.addingTimeInterval(1))
        // 3 arrives: both verified, nothing waits.
        #expect(
            chain.advance(over: [Self.link(3), Self.link(4)], bridges: [], now: Self.start.addingTimeInterval(60))
                == [.follows(3), .follows(4)])
        #expect(chain.state == ChainVerifier.State(head: Self.hash(4), lastEventId: 4, verifiedFrom: 1))
    }

    @Test func aHoleStillOpenAfterTheHoldIsABreakAndTheChainGoesOnAfterIt() {
        var chain = ChainVerifier(hold: 60)
        _ = chain.advance(over: [Self.link(1), Self.link(2)], bridges: [], now: Self.start)
        #expect(chain.advance(over: [Self.link(4), Self.link(5)], bridges: [], now: Self.start) == [])
        #expect(
            chain.advance(over: [Self.link(4), Self.link(5)], bridges: [], now: Self.start.addingTimeInterval(60))
                == [.breaks(4, expected: Self.hash(2), found: Self.hash(3)), .follows(5)])
        #expect(chain.state == ChainVerifier.State(head: Self.hash(5), lastEventId: 5, verifiedFrom: 1))
        #expect(chain.isBehind(3))
        // 3 arrives late: it fills the break (2 → 3 → the hash 4 named).
        #expect(ChainVerifier.fills([Self.link(3)], from: Self.hash(2), to: Self.hash(3)))
        #expect(!ChainVerifier.fills([], from: Self.hash(2), to: Self.hash(3)))
        #expect(!ChainVerifier.fills([Self.link(3, after: 1)], from: Self.hash(2), to: Self.hash(3)))
    }

    @Test func aDeletionThatSpansTheHoleBridgesItAtOnce() {
        var chain = ChainVerifier(hold: 60)
        _ = chain.advance(over: [Self.link(1), Self.link(2)], bridges: [], now: Self.start)
        let bridge = ChainVerifier.Bridge(previousHash: Self.hash(2), lastHash: Self.hash(4))
        #expect(
            chain.advance(over: [Self.link(5)], bridges: [bridge], now: Self.start) == [.bridged(5, bridge)])
        #expect(chain.state.lastEventId == 5 && chain.state.holeSince == nil)
    }

    @Test func aHoldOfZeroMakesEveryHoleABreakAtOnce() {
        var chain = ChainVerifier(hold: 0)
        _ = chain.advance(over: [Self.link(1)], bridges: [], now: Self.start)
        #expect(
            chain.advance(over: [Self.link(3)], bridges: [], now: Self.start)
                == [.breaks(3, expected: Self.hash(1), found: Self.hash(2))])
        #expect(chain.state.lastEventId == 3 && chain.state.holeSince == nil)
    }

    @Test func aSensorThatRecordedBeforeStartsItsChainWhereTheCollectorJoined() {
        var chain = ChainVerifier(hold: 60)
        #expect(
            chain.advance(over: [Self.link(40), Self.link(41)], bridges: [], now: Self.start)
                == [.startsHere(40), .follows(41)])
        #expect(chain.state.verifiedFrom == 40)
    }
}
