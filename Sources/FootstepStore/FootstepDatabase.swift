import Foundation
import GRDB

/// The evidence store: footstepd's SQLite database.
///
/// Follows GRDB's "app database" pattern: the initializer runs the migrator, every
/// write is a named method that keeps the store's invariants (the event hash chain,
/// open-session checks, tombstones on deletion) in one transaction, and reads go
/// through ``reader`` (on a `DatabasePool`, concurrent with writes, each read a
/// consistent snapshot).
///
/// Schema conventions: singular camelCase table names (`session`, `sessionGap`,
/// `audioFile`, `event`, `levelMinute`, `bout`, `calibration`, `chainDeletion`,
/// `chainHead`), camelCase column names equal to the record properties, `id` INTEGER
/// primary keys with AUTOINCREMENT (ids are never reused), foreign keys with
/// `ON DELETE CASCADE`, times as UTC text `yyyy-MM-dd HH:mm:ss.SSS`, enums as their raw
/// value. Migrations (``migrator``) are append-only: a shipped migration is never edited.
///
/// - Note: The value is `Sendable` and cheap to copy; all copies share one connection
///   pool. Writes are serialised by GRDB; call them from any thread or task. They
///   block the caller for the duration of one transaction (milliseconds), so the
///   daemon calls them from its store task, never from the capture thread.
/// - Throws: Every method throws ``StoreError`` only.
public struct FootstepDatabase: Sendable {
    /// The database writer (a `DatabasePool` on disk, a `DatabaseQueue` in memory).
    let writer: any DatabaseWriter

    /// The path of the database file, or `:memory:`; used in error messages.
    public let path: String

    /// The noise rules checked as events and level minutes are appended (``checkingRules(_:)``); nil: none.
    var ruleWatch: RuleWatch?

    /// Read access for custom queries: snapshots that never block the writer.
    public var reader: any DatabaseReader { writer }

    /// Opens (or creates) the database on an existing writer and brings its schema up to date.
    ///
    /// - Parameters:
    ///   - writer: A `DatabasePool` (production) or `DatabaseQueue` (tests).
    ///   - path: Used in error messages.
    public init(_ writer: any DatabaseWriter, path: String) throws(StoreError) {
        self.writer = writer
        self.path = path
        do {
            let migrator = Self.migrator
            if try writer.read({ try migrator.hasBeenSuperseded($0) }) {
                throw StoreError.schemaTooNew(path: path)
            }
            try migrator.migrate(writer)
        } catch {
            throw StoreError.map(error, path: path)
        }
    }

    /// Opens (or creates) the database file at `path` in WAL mode, creating missing
    /// parent directories (mode 0750), and migrates it.
    ///
    /// - Parameters:
    ///   - path: e.g. `/var/lib/footstepd/footstepd.db` (systemd's StateDirectory).
    ///   - pageCacheKiB: The most memory each connection (the writer and every reader of the
    ///     pool) keeps in its SQLite page cache, in KiB (`PRAGMA cache_size = -N`). Nil keeps
    ///     SQLite's default of 2,000 KiB per connection, which suits short-lived tools. A
    ///     long-running process should pass a bound: a connection keeps every page it has
    ///     touched until the cache is full, so the writer's cache grows with the file (all
    ///     the pages an append-only table has ever had as its last leaf) up to that limit.
    /// - Throws: ``StoreError/cannotOpen(path:message:)``, ``StoreError/schemaTooNew(path:)``,
    ///   ``StoreError/corrupt(path:message:)``, ``StoreError/readOnly(path:message:)``…
    public static func open(path: String, pageCacheKiB: Int? = nil) throws(StoreError) -> FootstepDatabase {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o750])
            } catch {
                throw .cannotOpen(path: path, message: "cannot create directory \(directory): \(error.localizedDescription)")
            }
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(
                path: path, configuration: makeConfiguration(readOnly: false, pageCacheKiB: pageCacheKiB))
        } catch {
            throw StoreError.map(error, path: path)
        }
        return try FootstepDatabase(pool, path: path)
    }

    /// Opens an existing database file for reading only (no migration, no writes),
    /// e.g. for an offline `footstepctl verify` on a copy of the evidence.
    ///
    /// - Throws: ``StoreError/schemaNotMigrated(path:)`` if the schema is not current,
    ///   ``StoreError/schemaTooNew(path:)`` if it is newer than this build.
    public static func openReadOnly(path: String) throws(StoreError) -> FootstepDatabase {
        do {
            guard FileManager.default.fileExists(atPath: path) else {
                throw StoreError.cannotOpen(path: path, message: "no such file")
            }
            let pool = try DatabasePool(path: path, configuration: makeConfiguration(readOnly: true))
            let (superseded, complete) = try pool.read { db in
                (try migrator.hasBeenSuperseded(db), try migrator.hasCompletedMigrations(db))
            }
            if superseded { throw StoreError.schemaTooNew(path: path) }
            if !complete { throw StoreError.schemaNotMigrated(path: path) }
            return FootstepDatabase(unmigrated: pool, path: path)
        } catch {
            throw StoreError.map(error, path: path)
        }
    }

    /// An empty in-memory database (a `DatabaseQueue`: no WAL, no concurrent reads), for tests.
    public static func inMemory() throws(StoreError) -> FootstepDatabase {
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(configuration: makeConfiguration(readOnly: false))
        } catch {
            throw StoreError.map(error, path: ":memory:")
        }
        return try FootstepDatabase(queue, path: ":memory:")
    }

    private init(unmigrated writer: any DatabaseWriter, path: String) {
        self.writer = writer
        self.path = path
    }

    /// Connection settings: foreign keys on, a 5 s busy timeout against other
    /// processes (an sqlite3 shell), optional read-only mode, and optionally a
    /// bounded page cache on every connection (see ``open(path:pageCacheKiB:)``).
    static func makeConfiguration(readOnly: Bool, pageCacheKiB: Int? = nil) -> Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.readonly = readOnly
        configuration.busyMode = .timeout(5)
        configuration.label = "FootstepStore"
        if let pageCacheKiB {
            // A negative cache_size is a budget in KiB, whatever the page size.
            let pragma = "PRAGMA cache_size = -\(max(pageCacheKiB, 1))"
            configuration.prepareDatabase { db in try db.execute(sql: pragma) }
        }
        return configuration
    }

    // MARK: - Error mapping

    /// Runs a write transaction, mapping every error to `StoreError`.
    func write<T>(_ updates: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try writer.write(updates)
        } catch {
            throw StoreError.map(error, path: path)
        }
    }

    /// Runs a read (a snapshot on a pool), mapping every error to `StoreError`.
    func read<T>(_ value: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try writer.read(value)
        } catch {
            throw StoreError.map(error, path: path)
        }
    }
}
