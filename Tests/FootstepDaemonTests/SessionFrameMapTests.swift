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
}
