import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// The notification list under `/v1/notifications` and the settings under `/v1/me`.
struct NotificationsController {
    let store: any NotificationStore
    let cursors: CursorCodec
    let authentication: AccessTokenMiddleware
    let languages: NotificationLanguages

    /// The list routes, mounted at `/v1/notifications`.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        let signedIn = routes.signedIn(authentication)
        signedIn.get { request, context in try await list(request, context: context) }
        signedIn.get("unread_count") { _, context in try await unreadCount(context: context) }
        signedIn.post("read") { request, context in try await markRead(request, context: context) }
        return routes
    }

    /// The settings routes, mounted at `/v1/me`.
    var settingsEndpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        let signedIn = routes.signedIn(authentication)
        signedIn.get("notification-settings") { request, context in
            try await languages.remember(request, user: context.user.id)
            return NotificationSettingsView(settings: try await store.notificationSettings(for: context.user.id))
                .response()
        }
        signedIn.put("notification-settings") { request, context in try await updateSettings(request, context: context)
        }
        return routes
    }

    /// `GET /v1/notifications?limit=&cursor=&types=&unread_only=`: the caller's groups, newest
    /// first, with `unread_count`.
    func list(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        var reader = QueryReader(request)
        let limit = reader.int("limit", in: ListLimits.allowed, default: ListLimits.default)
        let unreadOnly = reader.bool("unread_only")
        var types: Set<NotificationType> = []
        if let names = reader.filter("types"), !names.isEmpty {
            for name in names.split(separator: ",", omittingEmptySubsequences: false) {
                if let type = NotificationType(rawValue: String(name)) {
                    types.insert(type)
                } else {
                    reader.fail("types", "unknown", .notificationTypeUnknown, ["expected": Self.typeNames])
                    break
                }
            }
        }
        try reader.validate()
        let filter = NotificationFilter(types: types, unreadOnly: unreadOnly)
        let scope = "notifications|\(context.user.id)|\(filter.mask)|\(unreadOnly)"
        let before = try reader.text("cursor").map { try cursors.decode(EventPosition.self, from: $0, scope: scope).id }
        try await languages.remember(request, user: context.user.id)
        let rows = try await store.notifications(for: context.user.id, filter: filter, before: before, limit: limit + 1)
        let unread = try await store.unreadNotificationCount(
            for: context.user.id, cap: NotificationLimits.unreadCountCap)
        let items = Array(rows.prefix(limit))
        let next =
            rows.count > limit
            ? items.last.map { cursors.encode(EventPosition(id: $0.latestEventID), scope: scope) } : nil
        return NotificationPage(items: items.map(NotificationView.init), nextCursor: next, unreadCount: unread)
            .response(for: request)
    }

    static let typeNames = NotificationType.allCases.map(\.rawValue).joined(separator: ", ")

    /// `GET /v1/notifications/unread_count`: `{"count": N}`, at most 1,000.
    func unreadCount(context: AuthenticatedContext) async throws -> Response {
        let count = try await store.unreadNotificationCount(
            for: context.user.id, cap: NotificationLimits.unreadCountCap)
        return CountView(count: count).response()
    }

    /// `POST /v1/notifications/read` with `{"up_to_id": N}` or `{"group_keys": […]}`: `204`.
    func markRead(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        struct Body: Decodable {
            /// Any JSON number (`9.5` and `99999999999999999999` are JSON, and are answered as
            /// numbers out of the field's rule, not as invalid JSON).
            var upToId: Decimal?
            var groupKeys: [String]?
        }
        let body = try await request.decodeJSON(as: Body.self)
        switch (body.upToId, body.groupKeys) {
        case (let number?, nil):
            var value = number
            var whole = Decimal()
            NSDecimalRound(&whole, &value, 0, .down)
            guard whole == number else {
                throw Problem.invalid("up_to_id", "not_an_integer", .fieldNotInteger)
            }
            guard number >= 0, number <= Decimal(Int64.max) else {
                throw Problem.invalid(
                    "up_to_id", "out_of_range", .fieldOutOfRange, ["min": "0", "max": "\(Int64.max)"])
            }
            let id = NSDecimalNumber(decimal: number).int64Value
            try await store.markNotificationsRead(for: context.user.id, .upTo(id))
        case (nil, let keys?):
            guard keys.count <= NotificationLimits.groupKeysPerRequest else {
                throw Problem.invalid(
                    "group_keys", "too_many", .notificationGroupKeysTooMany,
                    ["max": "\(NotificationLimits.groupKeysPerRequest)"])
            }
            // Characters, as the message says (a Korean key of 200 letters is 600 bytes).
            guard keys.allSatisfy({ (1...200).contains($0.count) }) else {
                throw Problem.invalid("group_keys", "length", .fieldLength, ["min": "1", "max": "200"])
            }
            try await store.markNotificationsRead(for: context.user.id, .groupKeys(keys))
        case (.some, .some):
            // Both: one of them, not a missing one.
            throw Problem.validation([
                FieldError(field: "up_to_id", code: "one_of", .notificationReadSelection),
                FieldError(field: "group_keys", code: "one_of", .notificationReadSelection),
            ])
        case (nil, nil):
            throw Problem.invalid("up_to_id", "required", .notificationReadSelection)
        }
        return Response(status: .noContent)
    }

    /// `PUT /v1/me/notification-settings`: changes the switches named, answers all of them.
    func updateSettings(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        if let contentType = request.headers[.contentType],
            contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
                != "application/json"
        {
            throw Problem(.unsupportedMediaType, .mediaTypeNotSupported, ["expected": "application/json"])
        }
        let buffer = try await request.body.collect(upTo: 16 * 1024)
        // A plain decoder: type names are the keys, and they must not be converted from snake case.
        guard let body = try? JSONDecoder().decode([String: [String: Bool]].self, from: Data(buffer: buffer)) else {
            throw Problem.invalid("list", "invalid", .notificationSettingsShape)
        }
        var errors: [FieldError] = []
        var changes: [String: [NotificationType: Bool]] = ["list": [:], "push": [:]]
        for (name, switches) in body.sorted(by: { $0.key < $1.key }) {
            guard changes[name] != nil else {
                errors.append(FieldError(field: name, code: "unknown", .notificationSettingsShape))
                continue
            }
            for (typeName, flag) in switches.sorted(by: { $0.key < $1.key }) {
                guard let type = NotificationType(rawValue: typeName) else {
                    errors.append(
                        FieldError(
                            field: "\(name).\(typeName)", code: "unknown", .notificationTypeUnknown,
                            ["expected": Self.typeNames]))
                    continue
                }
                changes[name]?[type] = flag
            }
        }
        if !errors.isEmpty { throw Problem.validation(errors) }
        try await languages.remember(request, user: context.user.id)
        let settings = try await store.updateNotificationSettings(
            for: context.user.id, list: changes["list"] ?? [:], push: changes["push"] ?? [:])
        return NotificationSettingsView(settings: settings).response()
    }
}

/// A list position after a notification: the id of its latest event.
struct EventPosition: CursorPosition {
    var id: Int64
    var cursorText: String { "\(id)" }
    init(id: Int64) { self.id = id }
    init?(cursorText: String) {
        guard let id = Int64(cursorText) else { return nil }
        self.id = id
    }
}

/// `{"count": N}`.
struct CountView: JSONWritable {
    var count: Int
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("count")
            writer.value(count)
        }
    }
}

/// The notification page: `{items, next_cursor, unread_count}`.
struct NotificationPage {
    var items: [NotificationView]
    var nextCursor: String?
    var unreadCount: Int

    /// The contract's page (`Page`) with `unread_count` after `next_cursor`, and its `Link`.
    func response(for request: Request) -> Response {
        var headers: HTTPFields = [:]
        if let nextCursor {
            headers[.link] = Page<NotificationView>.nextLink(
                path: request.uri.path, query: request.uri.query, cursor: nextCursor)
        }
        var writer = JSONWriter(capacity: 512 + items.count * 400)
        writer.object { writer in
            writer.key("items")
            writer.array { writer in for item in items { item.write(to: &writer) } }
            writer.key("next_cursor")
            writer.value(nextCursor)
            writer.key("unread_count")
            writer.value(unreadCount)
        }
        return writer.response(headers: headers)
    }
}

/// The language each user's pushes are written in, remembered from their requests' `Accept-Language`
/// (written to the store only when it changes, so reading a list costs no write).
final class NotificationLanguages: Sendable {
    let store: any NotificationStore
    private let known = Mutex<[Int64: Language]>([:])

    init(store: any NotificationStore) {
        self.store = store
    }

    func remember(_ request: Request, user: Int64) async throws {
        guard request.headers[.acceptLanguage] != nil else { return }
        let language = Language.of(request)
        let changed = known.withLock { known in
            guard known[user] != language else { return false }
            // Bounded: forgetting costs one more write later, nothing else.
            if known.count >= 100_000 { known.removeAll(keepingCapacity: true) }
            known[user] = language
            return true
        }
        if changed { try await store.setNotificationLanguage(language, for: user) }
    }
}
