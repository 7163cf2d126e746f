import FootstepWire
import Foundation
import NIOCore

/// The newline-delimited JSON live routes.
extension ControlClient {
    /// The lines of a live NDJSON route as they arrive (without the newline,
    /// empty lines skipped). Connection and HTTP errors are thrown from the
    /// first `next()`; the sequence ends when the daemon closes the stream.
    /// Stopping the iteration (or cancelling its task) closes the connection.
    public func liveLines(_ request: ControlRequest) -> AsyncThrowingStream<Data, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let transport = transport
        let task = Task {
            var splitter = LineSplitter()
            do {
                try await transport.stream(request) { chunk in
                    for line in try splitter.append(chunk) { continuation.yield(line) }
                }
                if let last = splitter.remainder() { continuation.yield(last) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// `GET /v1/levels/live`: about 8 readings a second.
    public func liveLevels() -> some AsyncSequence<LiveLevelReading, any Error> {
        liveLines(.liveLevels).map { try ControlClient.decode(LiveLevelReading.self, from: $0) }
    }

    /// `GET /v1/events/live`: each event as it is stored.
    public func liveEvents() -> some AsyncSequence<EventResponse, any Error> {
        liveLines(.liveEvents).map { try ControlClient.decode(EventResponse.self, from: $0) }
    }
}

/// Cuts a byte stream into lines at `\n` (a trailing `\r` is dropped).
struct LineSplitter {
    /// A line longer than this is a protocol error (a reading is ~150 bytes).
    static let maximumLineBytes = 1 << 20
    private var pending: [UInt8] = []

    /// The complete lines `chunk` finishes; the rest waits for the next chunk.
    mutating func append(_ chunk: ByteBuffer) throws(ControlClientError) -> [Data] {
        var lines: [Data] = []
        for byte in chunk.readableBytesView {
            if byte == UInt8(ascii: "\n") {
                if let line = take() { lines.append(line) }
            } else {
                pending.append(byte)
            }
        }
        guard pending.count <= Self.maximumLineBytes else {
            throw .malformedResponse("a live line longer than \(Self.maximumLineBytes) bytes")
        }
        return lines
    }

    /// The unterminated last line, if any.
    mutating func remainder() -> Data? { take() }

    private mutating func take() -> Data? {
        defer { pending.removeAll(keepingCapacity: true) }
        if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
        return pending.isEmpty ? nil : Data(pending)
    }
}
