import Foundation
import NIOCore

/// The credentials of the process at the other end of a Unix socket, as the
/// kernel recorded them at `connect()` (`SO_PEERCRED`, `SO_PEERGROUPS`): they
/// cannot be forged by the client.
public struct PeerCredentials: Sendable, Equatable, CustomStringConvertible {
    public var pid: pid_t
    public var uid: uid_t
    public var gid: gid_t
    /// The supplementary groups the process held at `connect()`; nil when the kernel did not say
    /// (``AccessPolicy`` then reads them from `/proc/PID/status`).
    public var groups: Set<gid_t>?

    public init(pid: pid_t, uid: uid_t, gid: gid_t, groups: Set<gid_t>? = nil) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    public var description: String { "uid \(uid) gid \(gid) pid \(pid)" }

    /// `struct ucred` from `<sys/socket.h>`; Glibc does not export it to Swift
    /// (it needs `_GNU_SOURCE`), so it is declared here with the same layout.
    struct UCred: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// Room for `SO_PEERGROUPS`' answer: 128 gids, zero-filled by NIO before the call (Linux writes only the
    /// groups there are, and refuses with `ERANGE` when there are more).
    struct GroupList: Sendable {
        struct Eight: Sendable { var a, b, c, d, e, f, g, h: UInt32 }
        var slots: (Eight, Eight, Eight, Eight, Eight, Eight, Eight, Eight,
                    Eight, Eight, Eight, Eight, Eight, Eight, Eight, Eight)

        /// The gids written. A zero is an unwritten slot: gid 0 (root's group) is never one a peer needs, since
        /// root itself is always allowed.
        var gids: Set<gid_t> {
            withUnsafeBytes(of: slots) { Set($0.bindMemory(to: UInt32.self).filter { $0 != 0 }) }
        }
    }

    /// `SO_PEERGROUPS` (Linux 4.13).
    static let peerGroupsOption: Int32 = 59

    /// Reads `SO_PEERCRED` and `SO_PEERGROUPS` of the socket behind `channel`.
    ///
    /// - Throws: ``APIError`` (403) when the channel is not a Unix socket (the TCP
    ///   metrics listener never calls this) or the kernel refuses.
    static func read(from channel: any Channel) async throws -> PeerCredentials {
        try await future(of: channel).get()
    }

    /// ``read(from:)`` for code on the channel's event loop.
    static func future(of channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(
                APIError(.forbidden, code: "no_peer_credentials", "the connection's peer credentials are unknown"))
        }
        let credentials: EventLoopFuture<UCred> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        // Without them (an old kernel, more than 128 groups) the groups are read from /proc instead.
        let groups: EventLoopFuture<Set<gid_t>?> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(peerGroupsOption)
        ).map { (list: GroupList) in list.gids }.recover { _ in nil }
        return credentials.and(groups).map { credentials, groups in
            PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid, groups: groups)
        }
            .flatMapErrorThrowing { error in
                throw APIError(
                    .forbidden, code: "no_peer_credentials", "the connection's peer credentials cannot be read: \(error)")
            }
    }
}
