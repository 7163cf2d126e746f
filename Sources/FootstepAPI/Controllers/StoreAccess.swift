import FootstepStore

extension ControlBackend {
    /// The store, or 503 while the daemon is still opening it.
    func store() throws(APIError) -> FootstepDatabase {
        guard let database else {
            throw .unavailable("starting", "the daemon is starting: the evidence store is not open yet; retry in a moment")
        }
        return database
    }
}
