import FootstepCore
import FootstepWire

/// What `watch` remembers of the events it has printed, to tell a new event
/// from a revised one on `/v1/events/live`: the daemon sends an event again,
/// with the same id, when a revision changes its label.
///
/// A line is a revision when its id was seen before, or when it carries
/// `revised_from` (an event first sent before `watch` connected). The labels
/// of the latest ``capacity`` events are kept: revisions come within a
/// minute of their event.
struct LiveLabels {
    /// An event's label as last printed.
    struct Label: Equatable {
        var kind: EventKind
        /// Its type for a footstep, `other` otherwise (``EventKind/label(_:)``).
        var text: String
    }

    let capacity: Int
    private var labels: [Int64: Label] = [:]

    init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// Records `event`'s label; returns the label it had before when the
    /// line revises an event, nil when the event is new.
    mutating func receive(_ event: EventResponse) -> Label? {
        let label = Label(kind: event.kind, text: event.kind.label(event.type))
        let previous =
            labels.updateValue(label, forKey: event.id)
            ?? event.revisedFrom.map { Label(kind: $0 == EventKind.other.rawValue ? .other : .footstep, text: $0) }
        if labels.count > capacity, let oldest = labels.keys.min() {
            labels.removeValue(forKey: oldest)
        }
        return previous
    }
}
