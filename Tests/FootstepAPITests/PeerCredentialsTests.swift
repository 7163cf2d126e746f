@testable import FootstepAPI
import FootstepTesting
import Foundation
import NIOCore
import NIOPosix
import Testing

/// The credentials a real AF_UNIX connection's server reads: the kernel's record of the client at `connect()`,
/// supplementary groups included (`SO_PEERGROUPS`), so that a daemon that cannot read other users' `/proc`
/// (`ProtectProc=invisible`) still sees a member's groups.
@Suite("Peer credentials")
struct PeerCredentialsTests {
    @Test func theServerReadsTheClientsUidGidAndSupplementaryGroupsFromTheSocket() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("peer.sock")
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let read = group.next().makePromise(of: PeerCredentials.self)
        let server = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                PeerCredentials.future(of: channel).cascade(to: read)
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(unixDomainSocketPath: path).get()
        let client = try await ClientBootstrap(group: group).connect(unixDomainSocketPath: path).get()
        let peer = try await read.futureResult.get()
        try await client.close()
        try await server.close()
        try await group.shutdownGracefully()

        var groups = [gid_t](repeating: 0, count: 256)
        let count = getgroups(Int32(groups.count), &groups)
        #expect(peer.pid == getpid() && peer.uid == geteuid() && peer.gid == getegid())
        #expect(peer.groups == Set(groups.prefix(Int(max(0, count)))).subtracting([0]))
    }

    @Test func aGroupListKeepsTheGidsWrittenAndNoUnwrittenSlot() {
        var list = PeerCredentials.GroupList(slots: (
            .init(a: 29, b: 44, c: 0, d: 0, e: 0, f: 0, g: 0, h: 0), .zero, .zero, .zero, .zero, .zero, .zero, .zero,
            .zero, .zero, .zero, .zero, .zero, .zero, .zero, .init(a: 0, b: 0, c: 0, d: 0, e: 0, f: 0, g: 0, h: 1000)))
        #expect(list.gids == [29, 44, 1000])
        list.slots.0 = .zero
        #expect(list.gids == [1000])
    }
}

extension PeerCredentials.GroupList.Eight {
    static let zero = Self(a: 0, b: 0, c: 0, d: 0, e: 0, f: 0, g: 0, h: 0)
}
