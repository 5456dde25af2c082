import BurgerMapCore
import Hummingbird

/// The limit of three of the service's routes, for `scripts/bench-ceiling`: each does its
/// route's work and nothing else. The same store call on the same database and the same JSON
/// writer, but no middleware (client address, access log, metrics, compression check, problem
/// documents, place reading), no authentication, no parameter checks and no cursor signing: a
/// page that continues says `"next_cursor": null`. What the service's own route costs beyond
/// one of these is the path around the work (docs/performance/http-path.md).
///
/// `burgermap-bench bare-route --data-dir …|--database-url …` serves them beside the constant
/// route; they are not part of the service.
package enum SameWorkRoutes {
    /// Adds `GET /nearby?lat=&lng=` (20 nearest within 2 km, as `scripts/nearby.lua` asks the
    /// service), `GET /places/{id}/reviews` (its first 20, anonymous) and `GET /feed/{user}`
    /// (that user's first 20) to `router`.
    package static func add<Context: RequestContext>(to router: Router<Context>, stores: ServiceStores) {
        router.get("/nearby") { request, _ -> Response in
            let parameters = request.formQuery
            guard let lat = parameters["lat"].flatMap({ Double(String($0)) }),
                let lng = parameters["lng"].flatMap({ Double(String($0)) })
            else { return Response(status: .badRequest) }
            let page = try await stores.places.nearbyPlaces(
                NearbyQuery(lat: lat, lng: lng, radiusM: 2000, limit: 20))
            return Page(items: page.items, nextCursor: nil).response(for: request)
        }
        router.get("/places/:id/reviews") { request, context -> Response in
            guard let id = context.parameters.get("id", as: Int64.self) else { return Response(status: .badRequest) }
            let page = try await stores.reviews.reviews(.place(id), after: nil, limit: 20, viewer: nil)
            return Page(items: page.items, nextCursor: nil).response(for: request)
        }
        router.get("/feed/:user") { request, context -> Response in
            guard let user = context.parameters.get("user", as: Int64.self) else {
                return Response(status: .badRequest)
            }
            let page = try await stores.feed.feed(of: user, after: nil, limit: 20)
            return Page(items: page.items, nextCursor: nil).response(for: request)
        }
    }
}
