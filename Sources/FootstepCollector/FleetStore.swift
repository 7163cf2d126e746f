import FootstepMQTT
import Foundation
import Logging
import PostgresNIO

/// The fleet's PostgreSQL database: sensors, sessions, events (partitioned by month), revisions, deletions, gaps,
/// level minutes and chain breaks (`resolved_by` a deletion that spans them, or `filled_at` when their events
/// arrived after all). Every insert is idempotent on (sensor, id): a redelivered message changes
/// nothing.
public struct FleetStore: Sendable {
    public let client: PostgresClient
    let logger: Logger
    /// How long an event that does not follow its sensor's chain waits for the events before it (a message in
    /// flight when the broker died arrives after later ones) before the hole is declared a chain break.
    public let chainHold: TimeInterval

    /// The default ``chainHold``: redelivery after a broker's restart takes seconds; a loss is still told within
    /// minutes.
    public static let defaultChainHold: TimeInterval = 300

    public init(client: PostgresClient, logger: Logger, chainHold: TimeInterval = Self.defaultChainHold) {
        self.client = client
        self.logger = logger
        self.chainHold = chainHold
    }

    /// The connection settings of `postgres://user[:password]@host[:port]/database` (no TLS: a fleet database is
    /// reached on a trusted network or through a tunnel).
    public static func configuration(url: String) throws(CollectorError) -> PostgresClient.Configuration {
        guard let parts = URLComponents(string: url), ["postgres", "postgresql"].contains(parts.scheme ?? ""),
            let host = parts.host, !host.isEmpty, let user = parts.user, !user.isEmpty
        else { throw .invalidDatabaseURL(url) }
        let database = String(parts.path.drop { $0 == "/" })
        return PostgresClient.Configuration(
            host: host, port: parts.port ?? 5432, username: user, password: parts.password,
            database: database.isEmpty ? user : database, tls: .disable)
    }

    /// Creates the tables that are missing.
    public func migrate() async throws {
        for statement in Self.schema { try await client.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
    }

    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS sensor (
            name text PRIMARY KEY,
            first_seen timestamptz NOT NULL,
            last_seen timestamptz NOT NULL,
            availability text,
            state jsonb,
            chain_head text,
            chain_last_event bigint NOT NULL DEFAULT 0,
            chain_verified_from bigint,
            chain_hole_since timestamptz)
        """,
        "ALTER TABLE sensor ADD COLUMN IF NOT EXISTS chain_hole_since timestamptz",
        """
        CREATE TABLE IF NOT EXISTS session (
            sensor text NOT NULL, id bigint NOT NULL, status text NOT NULL, started_at timestamptz NOT NULL,
            ended_at timestamptz, payload jsonb NOT NULL, PRIMARY KEY (sensor, id))
        """,
        """
        CREATE TABLE IF NOT EXISTS event (
            sensor text NOT NULL, id bigint NOT NULL, session bigint NOT NULL, time timestamptz NOT NULL,
            kind text NOT NULL, type text NOT NULL, confidence double precision NOT NULL,
            lafmax double precision NOT NULL, hash text NOT NULL, previous_hash text NOT NULL, deleted_by bigint,
            payload jsonb NOT NULL, received_at timestamptz DEFAULT clock_timestamp(),
            PRIMARY KEY (sensor, id, time)) PARTITION BY RANGE (time)
        """,
        // A database from before: its rows' arrival is unknown (NULL), not the time of this migration.
        "ALTER TABLE event ADD COLUMN IF NOT EXISTS received_at timestamptz",
        "ALTER TABLE event ALTER COLUMN received_at SET DEFAULT clock_timestamp()",
        """
        CREATE TABLE IF NOT EXISTS revision (
            sensor text NOT NULL, id bigint NOT NULL, event bigint NOT NULL, time timestamptz NOT NULL,
            kind text NOT NULL, type text NOT NULL, confidence double precision NOT NULL, hash text NOT NULL,
            payload jsonb NOT NULL, PRIMARY KEY (sensor, id))
        """,
        """
        CREATE TABLE IF NOT EXISTS deletion (
            sensor text NOT NULL, id bigint NOT NULL, time timestamptz NOT NULL, first_event bigint NOT NULL,
            last_event bigint NOT NULL, events integer NOT NULL, previous_hash text NOT NULL, last_hash text NOT NULL,
            reason text NOT NULL, payload jsonb NOT NULL, PRIMARY KEY (sensor, id))
        """,
        """
        CREATE TABLE IF NOT EXISTS gap (
            sensor text NOT NULL, id bigint NOT NULL, session bigint NOT NULL, started_at timestamptz NOT NULL,
            ended_at timestamptz NOT NULL, reason text NOT NULL, PRIMARY KEY (sensor, id))
        """,
        """
        CREATE TABLE IF NOT EXISTS level_minute (
            sensor text NOT NULL, id bigint NOT NULL, session bigint NOT NULL, started_at timestamptz NOT NULL,
            seconds double precision NOT NULL, laeq double precision NOT NULL, lafmax double precision NOT NULL,
            la90 double precision NOT NULL, PRIMARY KEY (sensor, id))
        """,
        """
        CREATE TABLE IF NOT EXISTS exceedance (
            sensor text NOT NULL, id bigint NOT NULL, session bigint NOT NULL, rule text NOT NULL, metric text NOT NULL,
            period text NOT NULL, time timestamptz NOT NULL, value double precision NOT NULL,
            threshold double precision NOT NULL, cause text NOT NULL, payload jsonb NOT NULL, PRIMARY KEY (sensor, id))
        """,
        """
        CREATE TABLE IF NOT EXISTS chain_break (
            sensor text NOT NULL, event bigint NOT NULL, expected_hash text NOT NULL, found_hash text NOT NULL,
            detected_at timestamptz NOT NULL, resolved_by bigint, filled_at timestamptz, PRIMARY KEY (sensor, event))
        """,
        "ALTER TABLE chain_break ADD COLUMN IF NOT EXISTS filled_at timestamptz",
    ]

    /// The statement that creates the monthly partition of `event` holding `time` when it is missing.
    static func partitionStatement(for time: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month], from: time)
        let start = calendar.date(from: parts)!
        let end = calendar.date(byAdding: .month, value: 1, to: start)!
        let name = String(format: "event_y%04dm%02d", parts.year!, parts.month!)
        return "CREATE TABLE IF NOT EXISTS \(name) PARTITION OF event FOR VALUES FROM ('\(day(start))') TO ('\(day(end))')"
    }

    private static func day(_ date: Date) -> String {
        String(MQTTPayloads.isoTime(date).prefix(10))
    }
}
