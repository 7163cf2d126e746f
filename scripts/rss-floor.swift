// The RSS floor of footstepd's libraries: loads the shared libraries footstepd
// links and uses each a little (a calendar, one FFTW plan, one SQLite write),
// with none of footstepd's own code or buffers, then prints its VmRSS split.
// Built and run by scripts/bench-daemon.sh:  swiftc -O rss-floor.swift -o rss-floor
import Foundation

#if canImport(Glibc)
import Glibc
#endif

func library(_ name: String) -> UnsafeMutableRawPointer {
    guard let handle = dlopen(name, RTLD_NOW | RTLD_GLOBAL) else {
        FileHandle.standardError.write(Data("rss-floor: cannot load \(name): \(String(cString: dlerror()))\n".utf8))
        exit(1)
    }
    return handle
}

func function<T>(_ handle: UnsafeMutableRawPointer, _ name: String, as type: T.Type) -> T {
    guard let symbol = dlsym(handle, name) else {
        FileHandle.standardError.write(Data("rss-floor: no \(name)\n".utf8))
        exit(1)
    }
    return unsafeBitCast(symbol, to: type)
}

// Foundation, as Hummingbird's date header and the daemon's status use it.
var calendar = Calendar(identifier: .gregorian)
calendar.timeZone = .gmt
_ = calendar.component(.hour, from: Date())
_ = try? JSONEncoder().encode(["started": Date()])

for name in ["libasound.so.2", "libsndfile.so.1", "libsystemd.so.0", "libstdc++.so.6"] { _ = library(name) }

typealias PlanRealFFT = @convention(c) (Int32, UnsafeMutablePointer<Float>?, UnsafeMutableRawPointer?, UInt32) -> OpaquePointer?
typealias ExecutePlan = @convention(c) (OpaquePointer?) -> Void
let fftw = library("libfftw3f.so.3")
let samples = UnsafeMutablePointer<Float>.allocate(capacity: 1024)
samples.initialize(repeating: 0.5, count: 1024)
let spectrum = UnsafeMutableRawPointer.allocate(byteCount: 8 * 513, alignment: 16)
let plan = function(fftw, "fftwf_plan_dft_r2c_1d", as: PlanRealFFT.self)(1024, samples, spectrum, 0)
function(fftw, "fftwf_execute", as: ExecutePlan.self)(plan)

typealias OpenDatabase = @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
typealias ExecuteSQL = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, OpaquePointer?, OpaquePointer?, OpaquePointer?) -> Int32
let sqlite = library("libsqlite3.so.0")
var database: OpaquePointer?
let path = CommandLine.arguments.dropFirst().first ?? "/tmp/rss-floor.db"
_ = function(sqlite, "sqlite3_open", as: OpenDatabase.self)(path, &database)
_ = function(sqlite, "sqlite3_exec", as: ExecuteSQL.self)(
    database, "PRAGMA journal_mode=WAL; CREATE TABLE IF NOT EXISTS t(a); INSERT INTO t VALUES(1);", nil, nil, nil)

var fields: [String: Int] = [:]
for line in try String(contentsOfFile: "/proc/self/status", encoding: .utf8).split(separator: "\n") {
    let parts = line.split(separator: ":")
    guard parts.count == 2, ["VmRSS", "RssAnon", "RssFile", "RssShmem"].contains(String(parts[0])) else { continue }
    fields[String(parts[0])] = Int(parts[1].split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "0") ?? 0
}
let rss = Double(fields["VmRSS"] ?? 0) / 1024
let anonymous = Double(fields["RssAnon"] ?? 0) / 1024
let fileBacked = Double((fields["RssFile"] ?? 0) + (fields["RssShmem"] ?? 0)) / 1024
print(String(format: "%.1f %.1f %.1f", rss, anonymous, fileBacked))
