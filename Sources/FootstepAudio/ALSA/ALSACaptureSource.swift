import CAlsa
import Dispatch
import Foundation
import Synchronization

/// Live capture from an ALSA PCM.
///
/// A dedicated thread blocks in `snd_pcm_readi` and hands each period to the
/// consumer through a preallocated ring; it never waits for the consumer and
/// never allocates per period. When the consumer falls behind, periods are
/// dropped and counted (`statistics.droppedPeriods`), and the read that
/// delivers the next period says how many frames were lost before it
/// (`framesLostBeforeLastRead`). Xruns are recovered with `snd_pcm_recover`
/// and counted.
///
/// The capture thread owns the PCM: it is the only code that touches the
/// handle after `init`, and it closes it when it leaves. A device that
/// stalls can hold the thread inside `snd_pcm_readi` for any length of time
/// (ALSA's `file` plugin blocks in `read()`); `close()` therefore only asks
/// the thread to stop and never closes a PCM the thread may still be in.
/// When no period arrives for `stallTimeout` seconds, `read` throws
/// `stalled` and the source stays usable: reading again resumes with the
/// audio. A device error ends the thread and `read` throws `deviceLost`.
public final class ALSACaptureSource: AudioSource, @unchecked Sendable {
    /// Counters a status page or metrics exporter can read at any time.
    public struct Statistics: Sendable, Equatable {
        /// Frames read from the device.
        public var capturedFrames: Int
        /// Periods dropped because the pipeline fell behind.
        public var droppedPeriods: Int
        /// Overruns reported by the device and recovered.
        public var xruns: Int
        /// Float samples that were not finite or out of range, replaced by 0.
        public var invalidSamples: Int
    }

    public let format: AudioFormat
    public let name: String
    public let frameCount: Int? = nil
    public let configuration: ALSACaptureConfiguration
    /// The period size the device accepted.
    public let periodFrames: Int

    private let pcm: OpaquePointer
    private let ring: PeriodRing
    private let periodAvailable = DispatchSemaphore(value: 0)
    private let threadExited = DispatchSemaphore(value: 0)
    private let threadHasExited = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    private let failureCode = Atomic<Int32>(0)
    private let captured = Atomic<Int>(0)
    private let xrunCount = Atomic<Int>(0)
    private let invalidCount = Atomic<Int>(0)
    private let closed = Mutex<Bool>(false)
    private var readOffset = 0  // consumer-only: frames of the current period already delivered
    public private(set) var framesLostBeforeLastRead = 0  // consumer-only

    /// Opens and starts capturing from `configuration.device`.
    /// - Parameter alsaConfiguration: a configuration to resolve the device
    ///   name in instead of the system's (tests use a `file`-plugin PCM).
    public init(
        configuration: ALSACaptureConfiguration,
        alsaConfiguration: ALSAConfigurationTree? = nil
    ) throws(AudioSourceError) {
        try configuration.validate()
        calsa_silence_errors()
        self.configuration = configuration
        self.name = "alsa:\(configuration.device)"
        var handle: OpaquePointer?
        let rc: Int32
        if let alsaConfiguration {
            rc = snd_pcm_open_lconf(&handle, configuration.device, SND_PCM_STREAM_CAPTURE, 0, alsaConfiguration.handle)
        } else {
            rc = snd_pcm_open(&handle, configuration.device, SND_PCM_STREAM_CAPTURE, 0)
        }
        guard rc >= 0, let handle else {
            throw .deviceUnavailable(
                device: configuration.device, code: rc, reason: String(cString: snd_strerror(rc)),
                available: ALSADeviceList.captureDevices())
        }
        let period: Int
        do {
            period = try Self.applyHardwareParameters(handle, configuration)
        } catch {
            snd_pcm_close(handle)
            throw error
        }
        self.pcm = handle
        self.periodFrames = period
        self.format = AudioFormat(sampleRate: configuration.sampleRate, channels: configuration.channels)
        self.ring = PeriodRing(periodSamples: period * configuration.channels, capacity: configuration.ringPeriods)
        let thread = Thread { [self] in captureLoop() }
        thread.name = "footstepd-capture"
        thread.stackSize = 1 << 20
        thread.start()
    }

    deinit { close() }

    /// A snapshot of the capture counters. Drops are read first: the capture
    /// thread counts a period's frames before it can drop it, so the snapshot
    /// never shows more dropped periods than captured ones.
    public var statistics: Statistics {
        let droppedPeriods = ring.droppedPeriods
        return Statistics(
            capturedFrames: captured.load(ordering: .relaxed), droppedPeriods: droppedPeriods,
            xruns: xrunCount.load(ordering: .relaxed), invalidSamples: invalidCount.load(ordering: .relaxed))
    }

    public var invalidSamples: Int { invalidCount.load(ordering: .relaxed) }

    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws(AudioSourceError) -> Int {
        let channels = format.channels
        let wanted = buffer.count / channels
        guard wanted > 0 else { return 0 }
        while true {
            if let (samples, frames, lost) = ring.peek() {
                framesLostBeforeLastRead = readOffset == 0 ? lost : 0
                let count = min(frames - readOffset, wanted)
                let source = UnsafeBufferPointer(rebasing: samples[(readOffset * channels)..<((readOffset + count) * channels)])
                _ = UnsafeMutableBufferPointer(rebasing: buffer[0..<(count * channels)]).initialize(fromContentsOf: source)
                readOffset += count
                if readOffset >= frames {
                    readOffset = 0
                    ring.consume()
                }
                return count
            }
            if closed.withLock({ $0 }) { return 0 }
            let code = failureCode.load(ordering: .acquiring)
            if code != 0 {
                throw .deviceLost(device: configuration.device, code: code, reason: String(cString: snd_strerror(code)))
            }
            let timeout = DispatchTime.now() + configuration.stallTimeout
            if periodAvailable.wait(timeout: timeout) == .timedOut, ring.peek() == nil, failureCode.load(ordering: .acquiring) == 0 {
                throw .stalled(device: configuration.device, seconds: configuration.stallTimeout)
            }
        }
    }

    public func close() {
        let alreadyClosed = closed.withLock { closed in
            defer { closed = true }
            return closed
        }
        if alreadyClosed { return }
        stopping.store(true, ordering: .releasing)
        periodAvailable.signal()
        // The thread leaves within one period, or at once after an error, and
        // closes the PCM itself. A stalled device may hold it longer: then it
        // closes the PCM when the read returns.
        _ = threadExited.wait(timeout: .now() + 1)
    }

    /// False once the capture thread has left and closed the PCM.
    public var isCapturing: Bool { !threadHasExited.load(ordering: .acquiring) }

    // MARK: - Capture thread

    private func captureLoop() {
        defer {
            snd_pcm_close(pcm)
            threadHasExited.store(true, ordering: .releasing)
            threadExited.signal()
        }
        let channels = configuration.channels
        let bytes = UnsafeMutableRawPointer.allocate(
            byteCount: periodFrames * channels * configuration.sampleFormat.bytesPerSample, alignment: 16)
        defer { bytes.deallocate() }
        while !stopping.load(ordering: .acquiring) {
            let n = snd_pcm_readi(pcm, bytes, snd_pcm_uframes_t(periodFrames))
            if n < 0 {
                let code = Int32(n)
                if code == -EPIPE { xrunCount.add(1, ordering: .relaxed) }
                if code == -EPIPE || code == -ESTRPIPE || code == -EINTR, snd_pcm_recover(pcm, code, 1) >= 0 {
                    continue
                }
                failureCode.store(code, ordering: .releasing)
                periodAvailable.signal()
                return
            }
            let frames = Int(n)
            guard frames > 0 else { continue }
            captured.add(frames, ordering: .relaxed)
            guard let slot = ring.nextWritableSlot(frames: frames) else { continue }
            let invalid = SampleConversion.toFloat(bytes, format: configuration.sampleFormat, count: frames * channels, into: slot)
            if invalid > 0 { invalidCount.add(invalid, ordering: .relaxed) }
            ring.commit(frames: frames)
            periodAvailable.signal()
        }
    }

    // MARK: - Hardware parameters

    private static func applyHardwareParameters(
        _ pcm: OpaquePointer, _ configuration: ALSACaptureConfiguration
    ) throws(AudioSourceError) -> Int {
        var params: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&params) >= 0, let params else {
            throw .invalidParameter("out of memory allocating ALSA hardware parameters")
        }
        defer { snd_pcm_hw_params_free(params) }
        let device = configuration.device
        func check(_ rc: Int32, _ what: String) throws(AudioSourceError) {
            if rc < 0 {
                throw .unsupportedFormat(device: device, requested: what, reason: String(cString: snd_strerror(rc)))
            }
        }
        try check(snd_pcm_hw_params_any(pcm, params), "any configuration")
        try check(snd_pcm_hw_params_set_access(pcm, params, SND_PCM_ACCESS_RW_INTERLEAVED), "interleaved access")
        let alsaFormat = configuration.sampleFormat == .s16LE ? SND_PCM_FORMAT_S16_LE : SND_PCM_FORMAT_FLOAT_LE
        try check(snd_pcm_hw_params_set_format(pcm, params, alsaFormat), "sample format \(configuration.sampleFormat.rawValue)")
        try check(snd_pcm_hw_params_set_channels(pcm, params, UInt32(configuration.channels)), "\(configuration.channels) channel(s)")
        try check(snd_pcm_hw_params_set_rate_resample(pcm, params, 0), "no resampling")
        try check(snd_pcm_hw_params_set_rate(pcm, params, UInt32(configuration.sampleRate), 0), "\(configuration.sampleRate) Hz (use a plughw: device to resample)")
        var period = snd_pcm_uframes_t(configuration.effectivePeriodFrames)
        var direction: Int32 = 0
        try check(snd_pcm_hw_params_set_period_size_near(pcm, params, &period, &direction), "a period of \(period) frames")
        var buffer = period * snd_pcm_uframes_t(configuration.bufferPeriods)
        try check(snd_pcm_hw_params_set_buffer_size_near(pcm, params, &buffer), "a buffer of \(buffer) frames")
        try check(snd_pcm_hw_params(pcm, params), "these hardware parameters")
        try check(snd_pcm_prepare(pcm), "prepare")
        return Int(period)
    }
}
