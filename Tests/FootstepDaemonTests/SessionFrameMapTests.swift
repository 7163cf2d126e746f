@testable import FootstepDaemon
import Testing

@Suite struct SessionFrameMapTests {
    /// A frame is placed by the skips before it, however many came after it.
    @Test func eachFrameIsPlacedByTheSkipsBeforeIt() {
        var map = SessionFrameMap()
        #expect(map.sessionFrame(ofPipelineFrame: 500) == 500)
        map.skip(100, beforePipelineFrame: 1000)
        map.skip(50, beforePipelineFrame: 1000)  // one hole, reported in two reads
        map.skip(400, beforePipelineFrame: 3000)
        #expect(map.skipped == 550)
        #expect(map.sessionFrame(ofPipelineFrame: 999) == 999)
        #expect(map.sessionFrame(ofPipelineFrame: 1000) == 1150)
        #expect(map.sessionFrame(ofPipelineFrame: 2999) == 3149)
        #expect(map.sessionFrame(ofPipelineFrame: 3000) == 3550)
        for frame in stride(from: Int64(0), to: 4000, by: 7) {
            let expected = frame + (frame >= 3000 ? 550 : frame >= 1000 ? 150 : 0)
            #expect(map.sessionFrame(ofPipelineFrame: frame) == expected)
        }
        // Forgetting keeps what the frames still to come need.
        map.forget(before: 2500)
        #expect(map.sessionFrame(ofPipelineFrame: 2500) == 2650)
        #expect(map.sessionFrame(ofPipelineFrame: 3001) == 3551)
        map.forget(before: 5000)
        #expect(map.sessionFrame(ofPipelineFrame: 5000) == 5550)
    }

    /// At 48 kHz the session counts three captured frames for each analysed one; skips are in captured frames.
    @Test func aCaptureAt48kHzCountsThreeSessionFramesPerPipelineFrame() {
        var map = SessionFrameMap(sessionFramesPerPipelineFrame: 3)
        #expect(map.sessionFrame(ofPipelineFrame: 500) == 1500)
        #expect(map.sessionLength(ofPipelineFrames: 16_000) == 48_000)
        map.skip(4800, beforePipelineFrame: 1000)
        #expect(map.sessionFrame(ofPipelineFrame: 999) == 2997)
        #expect(map.sessionFrame(ofPipelineFrame: 1000) == 7800)
        // 44.1 kHz: fractional, rounded to the nearest captured frame.
        let map44 = SessionFrameMap(sessionFramesPerPipelineFrame: 44_100.0 / 16_000)
        #expect(map44.sessionFrame(ofPipelineFrame: 16_000) == 44_100)
        #expect(map44.sessionFrame(ofPipelineFrame: 1) == 3)
    }
}
