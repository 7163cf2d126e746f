import FootstepAudio
import FootstepDSP
import Foundation

/// The frame step network's training input: the stream picture
/// (`FramePicture`, through `StreamFramePicture`) of each labelled recording,
/// exactly as the pipeline forms it, written as `NAME.f32` (little-endian float32, `FramePicture.bandCount`
/// values a 10 ms frame, frame-major). `tools/eval/frame_network.py` reads them.
enum FramePictures {
    /// Writes the picture of every `NAME.wav` in `directory` (with its truth
    /// CSV) to `output/NAME.f32`; returns how many it wrote.
    static func write(recordingsIn directory: String, to output: String) throws -> Int {
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        let files = try LabelledRecordings.files(in: directory)
        for file in files {
            let name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
            let columns = try picture(of: file)
            let path = (output as NSString).appendingPathComponent(name + ".f32")
            try columns.map(\.bitPattern.littleEndian).withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: path))
        }
        return files.count
    }

    /// The picture of `audio`'s channels mixed to mono at the analysis rate, frame-major.
    static func picture(of audio: String) throws -> [Float] {
        let source = try AudioFileSource(path: audio).atAnalysisRate()
        defer { source.close() }
        let channels = source.format.channels
        var picture = try StreamFramePicture(sampleRate: Double(source.format.sampleRate))
        let hopFrames = picture.hopFrames
        var block = [Float](repeating: 0, count: hopFrames * channels)
        var hop = [Float](repeating: 0, count: hopFrames)
        var columns: [Float] = []
        while true {
            // A short read (the end of the file) is not a whole hop: the pipeline drops it too.
            var filled = 0
            while filled < block.count {
                let read = try block.withUnsafeMutableBufferPointer { buffer in
                    try source.read(into: UnsafeMutableBufferPointer(rebasing: buffer[filled...]))
                }
                if read == 0 { break }
                filled += read * channels
            }
            guard filled == block.count else { break }
            for frame in 0..<hopFrames {
                var sum: Float = 0
                for channel in 0..<channels { sum += block[frame * channels + channel] }
                hop[frame] = sum / Float(channels)
            }
            let column = hop.withUnsafeBufferPointer { picture.process($0) }
            columns.append(contentsOf: column)
        }
        return columns
    }
}
