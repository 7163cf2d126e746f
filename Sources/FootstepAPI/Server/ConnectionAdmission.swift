import Foundation
import HTTPTypes
import Synchronization

/// How many connections the control socket holds, and for whom.
public struct ConnectionLimits: Sendable, Equatable {
    /// Connections open at once, by anyone, including those being refused
    /// (each for at most ``RefusalHandler/linger``); more wait in the listen backlog.
    public var total = 256
    /// Connections all readers together may hold; the rest of ``total`` is
    /// kept for root, the daemon's user and the admin group.
    public var readers = 48
    /// Most connections one reader's uid may hold at once.
    public var perReader = 8

    public init(total: Int = 256, readers: Int = 48, perReader: Int = 8) {
        self.total = total
        self.readers = readers
        self.perReader = perReader
    }

    /// Connections readers can never take.
    var reservedForAdmins: Int { max(0, total - readers) }
}

/// Decides at accept, from the peer's credentials, whether a connection is
/// served: peers that may not read are refused (403), and a reader is
/// refused (503) when its uid, or readers together, hold their share of
/// ``ConnectionLimits``. Admitted connections hold a ``Ticket`` until they close.
///
/// Each request is still authorised on its own (``AccessPolicy`` per route):
/// admission only keeps connections that could never be served, or too many
/// from one user, from holding the socket.
public final class ConnectionAdmission: Sendable {
    /// The outcome for one connection.
    public enum Decision: Sendable, Equatable {
        case admitted(Ticket)
        case refused(status: HTTPResponse.Status, code: String, message: String)
    }

    /// An admitted connection's place; `release()` when it closes (once).
    public struct Ticket: Sendable, Equatable {
        /// nil for a privileged peer (root, the daemon's user, the admin group).
        let readerUID: uid_t?
    }

    private struct Counts {
        var privileged = 0
        var readers = 0
        var perUID: [uid_t: Int] = [:]
    }

    public let limits: ConnectionLimits
    private let policy: AccessPolicy
    private let counts = Mutex(Counts())

    public init(policy: AccessPolicy, limits: ConnectionLimits) {
        self.policy = policy
        self.limits = limits
    }

    /// Admits or refuses a connection from `peer`.
    public func admit(_ peer: PeerCredentials) -> Decision {
        if case .allowed = policy.decide(peer, .admin) {
            counts.withLock { $0.privileged += 1 }
            return .admitted(Ticket(readerUID: nil))
        }
        if case let .denied(group) = policy.decide(peer, .read) {
            return .refused(
                status: .forbidden, code: "forbidden",
                message: AccessPolicy.denial(of: .read, group: group, uid: peer.uid))
        }
        let limits = limits
        return counts.withLock { counts in
            let mine = counts.perUID[peer.uid, default: 0]
            if mine >= limits.perReader {
                return .refused(
                    status: .serviceUnavailable, code: "too_many_connections",
                    message: "uid \(peer.uid) already holds \(mine) connections to footstepd (at most \(limits.perReader) per user): close some and try again")
            }
            if counts.readers >= limits.readers {
                return .refused(
                    status: .serviceUnavailable, code: "too_many_connections",
                    message: "readers hold all \(limits.readers) connections footstepd serves them (\(limits.reservedForAdmins) more are kept for administrators): try again shortly")
            }
            counts.readers += 1
            counts.perUID[peer.uid] = mine + 1
            return .admitted(Ticket(readerUID: peer.uid))
        }
    }

    /// Gives back an admitted connection's place.
    public func release(_ ticket: Ticket) {
        counts.withLock { counts in
            guard let uid = ticket.readerUID else {
                counts.privileged -= 1
                return
            }
            counts.readers -= 1
            let left = counts.perUID[uid, default: 1] - 1
            counts.perUID[uid] = left > 0 ? left : nil
        }
    }

    /// Connections held now: by privileged peers, by readers, by each reader uid.
    public var held: (privileged: Int, readers: Int, perUID: [uid_t: Int]) {
        counts.withLock { ($0.privileged, $0.readers, $0.perUID) }
    }
}
