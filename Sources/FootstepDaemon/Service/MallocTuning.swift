#if canImport(Glibc)
import Glibc
#endif

/// glibc malloc settings for a process that runs for weeks on a small machine.
///
/// glibc's dynamic mmap threshold lets a long-running daemon's heap creep up
/// without any live data growing (measured with heaptrack and
/// /proc/PID/smaps over an accelerated 24-hour run; see
/// `scripts/bench-daemon.sh`). A block of 128 KiB or more is first served by
/// `mmap` and unmapped on `free`, but that `free` raises the threshold to the
/// block's size and the trim threshold to twice that. After the first audio
/// file's SHA-256 (read 1 MiB at a time), such buffers come from the heap of
/// whichever thread's arena serves them, and up to 2 MiB of free memory at the
/// top of each heap is no longer given back: RSS rose in steps of about 1 MB
/// at file closes. Setting `M_MMAP_THRESHOLD` explicitly turns the adjustment
/// off: large transient buffers stay `mmap`ped and go back to the kernel when
/// freed, and the trim threshold stays at 128 KiB. The cost is one
/// `mmap`/`munmap` pair per large buffer, a few per minute in the daemon.
///
/// - Note: Call once, early in `main`, before the daemon's threads start.
public enum MallocTuning {
    /// Allocations of this size or more are served by `mmap` (glibc's initial default, now fixed).
    public static let mmapThreshold: Int32 = 128 * 1024

    /// Applies the setting; returns false (changing nothing) where glibc's
    /// `mallopt` is not available.
    @discardableResult
    public static func apply() -> Bool {
        #if canImport(Glibc)
        // mallopt is declared in <malloc.h>, which the Glibc module does not import.
        guard let symbol = dlsym(nil, "mallopt") else { return false }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        let mmapThresholdParameter: Int32 = -3  // M_MMAP_THRESHOLD in <malloc.h>
        return mallopt(mmapThresholdParameter, mmapThreshold) == 1
        #else
        return false
        #endif
    }
}
