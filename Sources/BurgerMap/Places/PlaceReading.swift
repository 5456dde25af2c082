import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// What an answer that holds places takes from its request: the languages its names are shown
/// in (`?lang=`, else `Accept-Language`) and the time `open_now` is judged at. Set for every
/// request by `PlaceReadingMiddleware` and read where a place is written (`Place.writeMembers`),
/// so that every answer holding a place (JSON, GeoJSON, OGC, the LookForRealBurger routes)
/// follows the same rule without each handler passing it on.
final class PlaceReading: Sendable {
    @TaskLocal static var current: PlaceReading?

    let preference: NamePreference
    let now: Date
    private let wrote = Atomic<Bool>(false)
    /// The languages the answer's names were shown in, in the order first met (each passed
    /// `PlaceNames.isValidLanguage`, so it is safe in a header).
    private let served = Mutex<[String]>([])

    init(preference: NamePreference, now: Date) {
        self.preference = preference
        self.now = now
    }

    /// The name to show for `place` in the request's language, or `nil` for its default name.
    func name(of place: Place) -> String? {
        guard let found = preference.named(inStored: place.storedNames) else { return nil }
        served.withLock { if !$0.contains(found.language) { $0.append(found.language) } }
        return found.name
    }

    /// `Content-Language`: the languages names were shown in, `nil` when every place showed its
    /// default name (whose language is not known).
    var contentLanguage: String? {
        served.withLock { $0.isEmpty ? nil : $0.joined(separator: ", ") }
    }

    /// Notes that the answer holds a place (it then says its language and varies by it).
    func wrotePlace() {
        wrote.store(true, ordering: .relaxed)
    }

    var holdsPlaces: Bool { wrote.load(ordering: .relaxed) }
}

/// Sets `PlaceReading` for each request; an answer that holds a place, or any answer of a route
/// that lists places, gets `Vary: Accept-Language`, and `Content-Language` naming the languages
/// its names were shown in (none when every name is a place's default). `lang` is
/// read by every route (it is not part of any cursor: the same cursor pages on in another
/// language).
struct PlaceReadingMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    /// The service's clock (tests pass their own).
    let clock: @Sendable () -> Timestamp

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let reading = PlaceReading(
            preference: NamePreference.forRequest(
                lang: Self.lang(request), acceptLanguage: request.headers[.acceptLanguage]),
            now: clock().date)
        var response = try await PlaceReading.$current.withValue(reading) { try await next(request, context) }
        // A list of places varies by language even when this page holds none: a cache must not
        // give an empty answer in one language for another's request.
        guard reading.holdsPlaces || Self.listsPlaces(request.uri.path) else { return response }
        response.headers.addVary("Accept-Language")
        if let language = reading.contentLanguage { response.headers[.contentLanguage] = language }
        return response
    }

    /// Whether the route answers places (its answer varies by language whatever it holds).
    static func listsPlaces(_ path: String) -> Bool {
        path.hasPrefix("/v1/places") || path.hasPrefix("/ogc/collections/places")
    }

    /// The request's `lang` parameter (`FormQuery`). A query without the bytes `lang` and
    /// without an escape (`%`) cannot name it and is not parsed: parsing every request's query
    /// here was 0.8% of a nearby request's CPU (`perf`, 2026-11-27), its handler parsing it again.
    static func lang(_ request: Request) -> String? {
        guard var query = request.uri.query else { return nil }
        let named = query.withUTF8 { bytes in
            bytes.contains(UInt8(ascii: "%"))
                || bytes.indices.dropLast(3).contains { bytes[$0...].starts(with: "lang".utf8) }
        }
        guard named else { return nil }
        return request.formQuery["lang"].map(String.init)
    }
}

extension Place {
    /// The name an answer shows: the one of the request's language (`PlaceReading`), else the
    /// default; notes that the answer holds a place.
    var shownName: String {
        guard let reading = PlaceReading.current else { return name }
        reading.wrotePlace()
        return reading.name(of: self) ?? name
    }

    /// `writeWhole` as a response.
    func wholeResponse(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var writer = JSONWriter(capacity: 1024)
        writeWhole(to: &writer)
        return writer.response(status: status, headers: headers)
    }
}
