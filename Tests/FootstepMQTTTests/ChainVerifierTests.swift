import FootstepCollector
import Testing

@Suite("Chain verifier")
struct ChainVerifierTests {
    static func hash(_ n: Int) -> String { String(repeating: String(n % 10), count: 64) }

    @Test func eventsFollowFromTheGenesisAndAHoleIsABreak() {
        var chain = ChainVerifier()
        #expect(chain.receive(id: 1, hash: Self.hash(1), previousHash: ChainVerifier.genesis) == .follows)
        #expect(chain.receive(id: 2, hash: Self.hash(2), previousHash: Self.hash(1)) == .follows)
        #expect(chain.receive(id: 2, hash: Self.hash(2), previousHash: Self.hash(1)) == .duplicate)
        #expect(chain.receive(id: 1, hash: Self.hash(1), previousHash: ChainVerifier.genesis) == .duplicate)
        // Event 3 never came: 4 names it.
        #expect(chain.receive(id: 4, hash: Self.hash(4), previousHash: Self.hash(3)) == .breaks(expected: Self.hash(2), found: Self.hash(3)))
        // The chain goes on from 4.
        #expect(chain.receive(id: 5, hash: Self.hash(5), previousHash: Self.hash(4)) == .follows)
        #expect(chain.state == ChainVerifier.State(head: Self.hash(5), lastEventId: 5, verifiedFrom: 1))
    }

    @Test func aSensorThatRecordedBeforeStartsItsChainWhereTheCollectorJoined() {
        var chain = ChainVerifier()
        #expect(chain.receive(id: 40, hash: Self.hash(40), previousHash: Self.hash(39)) == .startsHere)
        #expect(chain.receive(id: 41, hash: Self.hash(41), previousHash: Self.hash(40)) == .follows)
        #expect(chain.state.verifiedFrom == 40)
    }
}
