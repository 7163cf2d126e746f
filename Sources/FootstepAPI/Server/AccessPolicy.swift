import Foundation
import Logging
import Synchronization

/// What a route needs from its caller.
public enum AccessLevel: String, Sendable {
    /// Status, listings, live streams, clips, metrics.
    case read
    /// Anything that changes state: recording control, edits, deletion, reload, calibration.
    case admin
}

/// Decides from a peer's credentials whether it may read or change state.
///
/// - read: root, the daemon's own user, members of the read group or the admin group;
/// - admin: root, the daemon's own user, members of the admin group.
///
/// Membership is the peer's effective group (from the peer credentials) plus
/// the supplementary groups its process held at `connect()` (`SO_PEERGROUPS`;
/// `/proc/PID/status` on a kernel without it, which a unit with
/// `ProtectProc=invisible` cannot read) that its user still belongs to
/// (`getgrouplist`: `/etc/group`, NSS), looked up for every request. Someone
/// removed from a group loses access at once; a process that dropped its
/// groups (`setpriv --clear-groups`, a sandbox) has none of them; someone added to a group has it from their next login, as with any
/// file the group owns. (The gids of the two group names are cached for a few
/// seconds.)
public final class AccessPolicy: Sendable {
    public let readGroup: String
    public let adminGroup: String
    private let daemonUID: uid_t
    private let cacheSeconds: Double
    private let groupIDCache = Mutex<(read: gid_t?, admin: gid_t?, at: ContinuousClock.Instant)?>(nil)

    /// - Parameter cacheSeconds: How long the gids of the group names are kept.
    public init(readGroup: String, adminGroup: String, daemonUID: uid_t = geteuid(), cacheSeconds: Double = 5) {
        self.readGroup = readGroup
        self.adminGroup = adminGroup
        self.daemonUID = daemonUID
        self.cacheSeconds = cacheSeconds
    }

    /// The outcome of a decision, with the reason logged.
    public enum Decision: Sendable, Equatable {
        case allowed(reason: String)
        case denied(group: String)
    }

    /// Whether `peer` may use a route needing `level`.
    public func decide(_ peer: PeerCredentials, _ level: AccessLevel) -> Decision {
        if peer.uid == 0 { return .allowed(reason: "root") }
        if peer.uid == daemonUID { return .allowed(reason: "the daemon's own user") }
        let groups = groups(of: peer)
        let ids = groupIDs()
        if let admin = ids.admin, groups.contains(admin) {
            return .allowed(reason: "member of \(adminGroup)")
        }
        switch level {
        case .admin:
            return .denied(group: adminGroup)
        case .read:
            if let read = ids.read, groups.contains(read) {
                return .allowed(reason: "member of \(readGroup)")
            }
            return .denied(group: readGroup)
        }
    }

    /// What a refused peer is told: what it may not do, the group it needs and how to join it.
    public static func denial(of level: AccessLevel, group: String, uid: uid_t) -> String {
        let what = level == .admin ? "changing the daemon's state or data" : "reading from footstepd"
        return "\(what) needs membership of the group '\(group)' (or root); uid \(uid) is not a member. "
            + "Ask an administrator to run: usermod -aG \(group) <your user>, then log in again"
    }

    /// The gids of the read and admin groups (nil when a group does not exist), cached.
    private func groupIDs() -> (read: gid_t?, admin: gid_t?) {
        let now = ContinuousClock.now
        if let cached = groupIDCache.withLock({ $0 }), now - cached.at < .seconds(cacheSeconds) {
            return (cached.read, cached.admin)
        }
        let ids = (read: Self.gid(named: readGroup), admin: Self.gid(named: adminGroup))
        groupIDCache.withLock { $0 = (ids.read, ids.admin, now) }
        return ids
    }

    /// The peer's groups: its effective gid, and the supplementary groups its process holds that its user still
    /// belongs to.
    func groups(of peer: PeerCredentials) -> Set<gid_t> {
        let held = peer.groups ?? Self.heldGroups(pid: peer.pid, uid: peer.uid)
        return Self.supplementaryGroups(uid: peer.uid).intersection(held).union([peer.gid])
    }

    /// The supplementary groups process `pid` holds now (`Groups:` of `/proc/PID/status`); none when the process is
    /// gone or is no longer `uid`'s (its pid reused): a peer's groups are never taken from another process.
    static func heldGroups(pid: pid_t, uid: uid_t) -> Set<gid_t> {
        guard pid > 0, let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return [] }
        var groups: Set<gid_t> = []
        var sameUser = false
        for line in status.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            guard let key = fields.first else { continue }
            if key == "Uid:", fields.count > 2 { sameUser = uid_t(fields[2]) == uid }
            if key == "Groups:" { groups = Set(fields.dropFirst().compactMap { gid_t($0) }) }
        }
        return sameUser ? groups : []
    }

    /// The user name and primary gid of `uid` (`/etc/passwd`, NSS), or nil without a passwd entry.
    public static func user(uid: uid_t) -> (name: String, gid: gid_t)? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else {
            return nil
        }
        return (String(cString: name), entry.pw_gid)
    }

    /// The groups of the user with `uid` (empty for a uid without a passwd entry).
    static func supplementaryGroups(uid: uid_t) -> Set<gid_t> {
        guard let user = user(uid: uid) else { return [] }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        while getgrouplist(user.name, user.gid, &groups, &count) < 0 {
            guard count < 65_536 else { return [] }
            groups = [gid_t](repeating: 0, count: Int(count) * 2)
            count = Int32(groups.count)
        }
        return Set(groups.prefix(Int(count)))
    }

    /// The gid of group `name`, or nil when no such group exists.
    public static func gid(named name: String) -> gid_t? {
        if name.isEmpty { return nil }
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        guard getgrnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.gr_gid
    }
}
