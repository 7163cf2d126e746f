/// Checks `condition` every 20 ms until it holds or `timeout` seconds have
/// passed; returns whether it held. For tests that watch a running daemon
/// from outside (its status, its store, its socket's subscribers).
public func waitUntil(_ timeout: Double, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}
