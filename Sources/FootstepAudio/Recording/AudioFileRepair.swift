import CSndfile
import FootstepCore
import Foundation

/// Repairs audio files left unfinished by a crash, kill or power cut, so that
/// every tool can read them (PLATFORM.md section 7):
/// - WAV: the RIFF and data chunk lengths are rewritten from the file size
///   (a trailing partial frame is cut off);
/// - FLAC with an unknown length (STREAMINFO total_samples 0): decoded to the
///   end and re-encoded into a finalised FLAC that atomically replaces it (the
///   encoder's last unflushed block, at most 4,096 frames, was never written);
/// - a file too short to hold even a header is replaced by an empty, valid file.
public enum AudioFileRepair {
    public enum Action: String, Sendable, Equatable {
        /// The file was already complete.
        case none
        /// WAV lengths rewritten.
        case wavHeaderRewritten
        /// FLAC decoded and re-encoded.
        case flacReencoded
        /// Nothing readable: replaced by an empty file.
        case recreatedEmpty
    }

    public struct Result: Sendable, Equatable {
        public var path: String
        public var action: Action
        /// Frames readable after the repair.
        public var frames: Int64
        /// Size after the repair.
        public var bytes: Int64
    }

    /// Repairs `path` in place. `format` is used when nothing of the file can be
    /// read (it then becomes an empty file in that format).
    public static func repair(path: String, fallbackFormat format: AudioFormat) throws(AudioFileWriterError) -> Result {
        guard let container = AudioFileContainer(pathExtension: path) else {
            throw AudioFileWriterError(path: path, reason: "not a .wav or .flac file")
        }
        switch container {
        case .wav: return try repairWAV(path: path, format: format)
        case .flac: return try repairFLAC(path: path, format: format)
        }
    }

    // MARK: WAV

    private static func repairWAV(path: String, format: AudioFormat) throws(AudioFileWriterError) -> Result {
        guard let handle = FileHandle(forUpdatingAtPath: path) else {
            throw AudioFileWriterError(path: path, reason: "cannot open for repair")
        }
        defer { try? handle.close() }
        let size: UInt64
        let header: Data
        do {
            size = try handle.seekToEnd()
            try handle.seek(toOffset: 0)
            header = try handle.read(upToCount: 4096) ?? Data()
        } catch {
            throw AudioFileWriterError(path: path, reason: "cannot read: \(error.localizedDescription)")
        }
        let bytes = [UInt8](header)
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else {
            try? handle.close()
            return try recreateEmpty(path: path, container: .wav, format: format)
        }
        // Walk the chunks to fmt (block align) and data.
        var offset = 12
        var blockAlign = 0
        var dataSizeOffset: Int?
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
            let length = Int(u32(offset + 4))
            if id == "fmt ", offset + 22 <= bytes.count { blockAlign = u16(offset + 8 + 12) }
            if id == "data" {
                dataSizeOffset = offset + 4
                break
            }
            offset += 8 + length + (length & 1)
        }
        guard let dataSizeOffset, blockAlign > 0 else {
            try? handle.close()
            return try recreateEmpty(path: path, container: .wav, format: format)
        }
        let dataStart = UInt64(dataSizeOffset + 4)
        let available = size > dataStart ? size - dataStart : 0
        let dataLength = available - available % UInt64(blockAlign)
        let newSize = dataStart + dataLength
        let wasCorrect = UInt64(u32(dataSizeOffset)) == dataLength && UInt64(u32(4)) == newSize - 8 && newSize == size
        if !wasCorrect {
            do {
                if newSize < size { try handle.truncate(atOffset: newSize) }
                try handle.seek(toOffset: 4)
                handle.write(littleEndian32(UInt32(truncatingIfNeeded: newSize - 8)))
                try handle.seek(toOffset: UInt64(dataSizeOffset))
                handle.write(littleEndian32(UInt32(truncatingIfNeeded: dataLength)))
                try handle.synchronize()
            } catch {
                throw AudioFileWriterError(path: path, reason: "cannot rewrite the header: \(error.localizedDescription)")
            }
        }
        return Result(
            path: path, action: wasCorrect ? .none : .wavHeaderRewritten, frames: Int64(dataLength) / Int64(blockAlign),
            bytes: Int64(newSize))
    }

    private static func littleEndian32(_ value: UInt32) -> Data {
        withUnsafeBytes(of: value.littleEndian) { Data($0) }
    }

    // MARK: FLAC

    private static func repairFLAC(path: String, format: AudioFormat) throws(AudioFileWriterError) -> Result {
        var info = SF_INFO()
        guard let input = sf_open(path, Int32(SFM_READ), &info) else {
            return try recreateEmpty(path: path, container: .flac, format: format)
        }
        if info.frames != sf_count_t(Int64.max) {
            sf_close(input)
            return Result(path: path, action: .none, frames: Int64(info.frames), bytes: fileSize(path))
        }
        let recovered = AudioFormat(sampleRate: Int(info.samplerate), channels: Int(info.channels))
        let temporary = path + ".repair"
        let writer: AudioFileWriter
        do {
            writer = try AudioFileWriter(
                path: temporary, format: recovered, container: .flac, encoding: AudioSampleEncoding(sndfileFormat: info.format))
        } catch {
            sf_close(input)
            throw error
        }
        var buffer = [Float](repeating: 0, count: 4096 * recovered.channels)
        var failure: AudioFileWriterError?
        while true {
            let frames = buffer.withUnsafeMutableBufferPointer { sf_readf_float(input, $0.baseAddress, 4096) }
            if frames <= 0 { break }
            do {
                try buffer.withUnsafeBufferPointer { (all) throws(AudioFileWriterError) in
                    try writer.write(UnsafeBufferPointer(rebasing: all[0..<(Int(frames) * recovered.channels)]))
                }
            } catch {
                failure = error
                break
            }
        }
        sf_close(input)
        let frames = writer.framesWritten
        do {
            try writer.close()
        } catch {
            failure = failure ?? error
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
        if rename(temporary, path) != 0 {
            unlink(temporary)
            throw AudioFileWriterError(path: path, reason: "cannot replace with the repaired file: \(String(cString: strerror(errno)))")
        }
        return Result(path: path, action: .flacReencoded, frames: frames, bytes: fileSize(path))
    }

    private static func recreateEmpty(
        path: String, container: AudioFileContainer, format: AudioFormat
    ) throws(AudioFileWriterError) -> Result {
        let temporary = path + ".repair"
        let writer = try AudioFileWriter(path: temporary, format: format, container: container)
        try writer.close()
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw AudioFileWriterError(path: path, reason: "cannot replace with an empty file: \(String(cString: strerror(errno)))")
        }
        return Result(path: path, action: .recreatedEmpty, frames: 0, bytes: fileSize(path))
    }

    private static func fileSize(_ path: String) -> Int64 {
        var status = stat()
        return stat(path, &status) == 0 ? Int64(status.st_size) : 0
    }
}
