import AuthCore
public import AuthCoreHTTP

/// Method and path to handler, matched on bytes: the server's table of endpoints, built once. A
/// handler is given the `Context` the server answers with (the app server itself: its services and
/// limits) and the request, so the table holds no state of its own.
///
/// A path no route has is `404 NotFound`; a path routed for other methods is
/// `405 MethodNotAllowed` with `Allow` naming them (RFC 9110 §15.5.6). Typed routes decode the
/// request's JSON body into a `Decodable` type and encode the handler's `Encodable` answer in the
/// server's one JSON style (`JSONAnswer`); a handler refuses by throwing ``HTTPRefusal``.
public struct Router<Context: Sendable>: Sendable {
    /// A handler: the request in, the answer out; anything it throws is answered by the server's
    /// error mapping.
    public typealias Handler = @Sendable (Context, HTTPServerRequest) async throws -> HTTPResponse

    /// One route.
    public struct Route: Sendable {
        /// The method, as sent (`GET`, `POST`).
        public let method: String
        /// The path, without the query.
        public let path: String
        /// What answers it.
        public let handler: Handler
        /// How its refusals are written (most routes: ``HTTPRefusal/response``).
        public let refusalAnswer: @Sendable (HTTPRefusal) -> HTTPResponse
    }

    /// The routes, in the order added.
    public private(set) var routes: [Route] = []

    /// An empty table.
    public init() {}

    /// Adds a route; `refusalAnswer` writes its refusals (default: `{"code":…,"message":…}`).
    public mutating func add(
        _ method: String,
        _ path: String,
        refusalAnswer: @escaping @Sendable (HTTPRefusal) -> HTTPResponse = { $0.response },
        _ handler: @escaping Handler
    ) {
        routes.append(Route(method: method, path: path, handler: handler, refusalAnswer: refusalAnswer))
    }

    /// A `POST` whose JSON body is a `Body` (`JSONAnswer.decode`) and whose answer is `handler`'s
    /// value as JSON (200); a body sent as another `Content-Type` is `415`. `authorize` runs first, before the body is
    /// read (a caller that may not
    /// use the endpoint learns nothing of its body's shape); what it returns (the user) is given to
    /// `handler`.
    package mutating func post<Body: Decodable & Sendable, Principal: Sendable, Answer: Encodable & Sendable>(
        _ path: String,
        _ body: Body.Type,
        authorize: @escaping @Sendable (Context, HTTPServerRequest) async throws -> Principal,
        _ handler: @escaping @Sendable (Context, Principal, Body, HTTPServerRequest) async throws -> Answer
    ) {
        add("POST", path) { context, request in
            let principal = try await authorize(context, request)
            // A JSON body says so: a browser sends a cross-site POST without asking first only for
            // the CORS-safelisted types (Fetch, "CORS-safelisted request-header"), never this one.
            if !request.body.isEmpty, !JSONAnswer.isJSON(contentType: request.headers.first(named: "Content-Type")) {
                throw HTTPRefusal(
                    status: 415,
                    code: "UnsupportedMediaType",
                    message: "the body must be sent as Content-Type: application/json"
                )
            }
            return JSONAnswer.response(
                try await handler(context, principal, try JSONAnswer.decode(Body.self, from: request.body), request)
            )
        }
    }

    /// A `POST` anyone may send: its JSON body is a `Body`, its answer `handler`'s value as JSON (200).
    package mutating func post<Body: Decodable & Sendable, Answer: Encodable & Sendable>(
        _ path: String,
        _ body: Body.Type,
        _ handler: @escaping @Sendable (Context, Body, HTTPServerRequest) async throws -> Answer
    ) {
        post(path, body, authorize: { _, _ in () }) { context, _, body, request in
            try await handler(context, body, request)
        }
    }

    /// The route for `request`.
    ///
    /// - Throws: ``HTTPRefusal`` `404 NotFound` for a path no route has; `405 MethodNotAllowed`
    ///   (with the methods it takes) for one routed for other methods.
    public func route(for request: HTTPServerRequest) throws(HTTPRefusal) -> Route {
        let candidates = routes.filter { $0.path.utf8.elementsEqual(request.path.utf8) }
        guard !candidates.isEmpty else { throw HTTPRefusal(status: 404, code: "NotFound", message: "no such endpoint") }
        guard let route = candidates.first(where: { $0.method.utf8.elementsEqual(request.method.utf8) }) else {
            let allow = candidates.map(\.method).joined(separator: ", ")
            throw HTTPRefusal(
                status: 405,
                code: "MethodNotAllowed",
                message: "\(request.path) takes \(allow)",
                headers: [HTTPHeader("Allow", allow)]
            )
        }
        return route
    }

    /// `refusal` written the way the routes of `path` write theirs (the default for a path no
    /// route has): a 405 on `distribute-token.json` keeps that endpoint's shape.
    public func answer(_ refusal: HTTPRefusal, path: String) -> HTTPResponse {
        routes.first { $0.path.utf8.elementsEqual(path.utf8) }.map { $0.refusalAnswer(refusal) } ?? refusal.response
    }
}
