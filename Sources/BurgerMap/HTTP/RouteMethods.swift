import BurgerMapCore
import HTTPTypes
import Hummingbird
import NIOCore

extension Router {
    /// Answers the requests whose path is a route of this router but whose method is not one of
    /// the route's: `OPTIONS` with `204` and `Allow`, any other method with
    /// `405 method_not_allowed` and `Allow` (RFC 9110 §9.3.7, §15.5.6). Left alone, Hummingbird's
    /// router answers both `404`, as for a path that is no route at all.
    ///
    /// Call it once, after every route is added: a router middleware added last wraps only the
    /// router's not-found responder, so it runs only for requests that no route took. `HEAD` is
    /// listed wherever `GET` is, as the router is expected to be built with
    /// `.autoGenerateHeadEndpoints`.
    func answerOtherMethods() {
        add(middleware: RouteMethodsMiddleware<Context>(routes: routes))
    }
}

/// The middleware behind `Router.answerOtherMethods()`.
///
/// It finds the route of a path with a second router that holds the same paths, each answering
/// `GET` with its `Allow` list. Both tries are built by Hummingbird from the same paths, so they
/// always agree on which route a path belongs to (`/v1/users/me` over `/v1/users/:id`, the
/// `{id}.jpg` captures) without a second path matcher written here.
struct RouteMethodsMiddleware<Context: RequestContext>: RouterMiddleware {
    private let lookup: RouterResponder<Context>

    /// The order methods are listed in `Allow`; others follow in alphabetical order.
    private static var order: [HTTPRequest.Method] { [.get, .head, .post, .put, .patch, .delete, .options] }

    init(routes: [Router<Context>.RouteDescription]) {
        var methods: [String: (path: RouterPath, methods: Set<HTTPRequest.Method>)] = [:]
        for route in routes {
            methods[route.path.description, default: (route.path, [])].methods.insert(route.method)
        }
        let lookup = Router(context: Context.self)
        for (path, registered) in methods.values {
            var allowed = registered.union([.options])
            if allowed.contains(.get) { allowed.insert(.head) }
            let list = Self.allowHeader(allowed)
            lookup.on(path, method: .get) { _, _ in Response(status: .ok, headers: [.allow: list]) }
        }
        self.lookup = lookup.buildResponder()
    }

    /// `GET, HEAD, OPTIONS`: the methods in the usual order.
    static func allowHeader(_ methods: Set<HTTPRequest.Method>) -> String {
        let known = order.filter(methods.contains)
        let others = methods.subtracting(order).map(\.rawValue).sorted()
        return (known.map(\.rawValue) + others).joined(separator: ", ")
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            var head = request.head
            head.method = .get
            let probe = try await lookup.respond(
                to: Request(head: head, body: .init(buffer: ByteBuffer())), context: context)
            guard let allowed = probe.headers[.allow] else { throw error }
            if request.method == .options {
                return Response(status: .noContent, headers: [.allow: allowed])
            }
            throw Problem(.methodNotAllowed, .methodNotAllowed, headers: [.allow: allowed])
        }
    }
}
