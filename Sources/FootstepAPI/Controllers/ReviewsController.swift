import FootstepCore
import FootstepStore
import FootstepWire
import Foundation
import Hummingbird
import Logging

/// `POST /v1/reviews` (admin): a person confirms, rejects or relabels events, a
/// bout or a time range. The reviewer is the peer the socket's credentials name.
struct ReviewsController {
    let backend: any ControlBackend
    let bodyLimit: Int
    let logger: Logger

    /// The most event ids one request names (a range or a bout has no limit).
    static let maximumIds = 10_000

    var routes: [Route] {
        [
            Route(.post, APIPaths.reviews, .admin) { request, context in
                let body = try await decodeBody(ReviewRequest.self, from: request, limit: bodyLimit)
                let action = try Self.action(body)
                let target = try Self.target(body)
                let reason = (body.reason ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                try SessionsController.checkText(reason, field: "reason", maximum: 1_000)
                guard let peer = context.peer else { throw APIError.internal("the peer's credentials were not read") }
                let reviewer = Reviewer(
                    uid: Int64(peer.uid), name: AccessPolicy.user(uid: peer.uid)?.name ?? "uid \(peer.uid)")
                let outcome = try await backend.review(target, action, by: reviewer, reason: reason)
                logger.notice(
                    "review: \(outcome.reviews.count) event(s) \(action.verdict.rawValue) by \(reviewer.name)",
                    metadata: peerMetadata(context))
                return try jsonResponse(ReviewResponse(
                    verdict: action.verdict, reviewed: outcome.reviews.map(\.eventId), unchanged: outcome.unchangedEventIds,
                    reviewer: reviewer.name, reviewerUid: reviewer.uid))
            }
        ]
    }

    static func action(_ body: ReviewRequest) throws(APIError) -> ReviewAction {
        switch body.action {
        case "confirm", "reject":
            guard body.type == nil else { throw .badParameter("type", "only a relabel names a type") }
            return body.action == "confirm" ? .confirm : .reject
        case "relabel":
            guard let type = body.type, type != .unknown else {
                throw .badParameter(
                    "type", "a relabel needs one of \(FootstepType.classified.map(\.rawValue).joined(separator: ", "))")
            }
            return .relabel(type)
        default:
            throw .badParameter("action", "'\(body.action)' is not one of \(ReviewRequest.actions.joined(separator: ", "))")
        }
    }

    static func target(_ body: ReviewRequest) throws(APIError) -> ReviewTarget {
        let given = [body.events != nil, body.bout != nil, body.from != nil || body.to != nil].filter { $0 }.count
        guard given == 1 else {
            throw .badBody("name exactly one target: events (ids), bout (an id), or from and to (a range)")
        }
        if let events = body.events {
            guard !events.isEmpty, events.count <= maximumIds else {
                throw .badParameter("events", "must name 1 to \(maximumIds) event ids")
            }
            guard events.allSatisfy({ $0 > 0 }) else { throw .badParameter("events", "ids are positive") }
            return .events(events)
        }
        if let bout = body.bout {
            guard bout > 0 else { throw .badParameter("bout", "ids are positive") }
            return .bout(bout)
        }
        guard let from = body.from, let to = body.to else {
            throw .badBody("a range needs both from and to (ISO 8601)")
        }
        guard from < to else { throw .badParameter("to", "must be after from") }
        return .range(from: from, to: to)
    }
}
