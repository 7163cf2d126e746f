import FootstepDaemon
import Testing

@Suite struct MallocTuningTests {
    /// glibc accepts the setting: mallopt is found and returns 1 (0 means a wrong parameter or value).
    @Test func glibcAcceptsTheFixedMmapThreshold() {
        #expect(MallocTuning.apply())
    }
}
