import AuthCore
import AuthCoreHTTP
import Foundation
import Testing

@testable import AuthCoreServer

/// The server's typed router and its one JSON style: routes matched on bytes, 404/405 with
/// `Allow`, authorization before the body is read, request bodies decoded into the wire types both
/// ends share, refusals that carry their status.
@Suite("Router: method and path to handler, typed bodies, refusals with their status")
struct RouterTests {
    /// A table with a context of `Int`: what each handler answers says which one ran.
    static let table: Router<Int> = {
        var router = Router<Int>()
        router.add("GET", "/item") { context, _ in HTTPResponse(status: 200, body: Array("get \(context)".utf8)) }
        router.add("DELETE", "/item") { _, _ in HTTPResponse(status: 204) }
        router.post("/echo", AppServerWire.RevokeRequest.self) { _, body, _ in
            AppServerWire.RevokeAnswer(revoked: body.all == true ? "all" : "one")
        }
        router.post(
            "/guarded",
            SRPLoginWire.FinishRequest.self,
            authorize: { _, request in
                guard request.bearerToken == "let-me-in" else {
                    throw HTTPRefusal(status: 401, code: "Unauthorized", message: "no")
                }
                return "alice"
            }
        ) { _, user, body, _ in AppServerWire.ErrorAnswer(code: user, message: body.loginId) }
        return router
    }()

    func answer(_ method: String, _ path: String, headers: [HTTPHeader] = [], body: String = "") async -> HTTPResponse {
        let typed =
            body.isEmpty || headers.first(named: "Content-Type") != nil
            ? headers : headers + [HTTPHeader("Content-Type", "application/json")]
        let request = HTTPServerRequest(method: method, path: path, headers: typed, body: Array(body.utf8))
        do {
            let route = try Self.table.route(for: request)
            do { return try await route.handler(7, request) } catch let refusal as HTTPRefusal {
                return route.refusalAnswer(refusal)
            } catch {
                return HTTPResponse(status: 599)
            }
        } catch {
            return Self.table.answer(error, path: path)
        }
    }

    func text(_ response: HTTPResponse) -> String { String(decoding: response.body.plainBytes, as: UTF8.self) }

    @Test(
        "paths and methods match by their bytes; an unknown path is 404, a known one with another method 405 naming the methods in Allow"
    )
    func matching() async {
        let get = await answer("GET", "/item")
        #expect(get.status == 200)
        #expect(text(get) == "get 7")
        #expect(await answer("DELETE", "/item").status == 204)
        for path in ["/ITEM", "/item/", "/item\u{0}", "/itém", ""] {
            let missing = await answer("GET", path)
            #expect(missing.status == 404, "\(path)")
            #expect(text(missing) == #"{"code":"NotFound","message":"no such endpoint"}"#)
        }
        for method in ["POST", "get", "HEAD"] {
            let refused = await answer(method, "/item")
            #expect(refused.status == 405, "\(method)")
            #expect(refused.headers.first(named: "Allow") == "GET, DELETE")
            #expect(text(refused) == #"{"code":"MethodNotAllowed","message":"\/item takes GET, DELETE"}"#)
        }
    }

    @Test(
        "a typed POST decodes its body into the wire type and answers JSON; a body with a member the type does not have is refused"
    )
    func typedBodies() async {
        let cases: [(body: String, status: Int, answer: String)] = [
            ("", 200, #"{"revoked":"one"}"#),
            ("{}", 200, #"{"revoked":"one"}"#),
            (#"{"all":true}"#, 200, #"{"revoked":"all"}"#),
            (#"{"all":false}"#, 200, #"{"revoked":"one"}"#),
            (
                #"{"all":"yes"}"#, 400,
                #"{"code":"MalformedRequest","message":"the body must be empty, {} or {\"all\":true}"}"#
            ),
            (
                #"{"all":true,"more":1}"#, 400,
                #"{"code":"MalformedRequest","message":"the body must be empty, {} or {\"all\":true}"}"#
            ),
            ("[]", 400, #"{"code":"MalformedRequest","message":"the body must be empty, {} or {\"all\":true}"}"#),
            ("{", 400, #"{"code":"MalformedRequest","message":"the body must be empty, {} or {\"all\":true}"}"#),
            (
                #"{"all":false,"all":true}"#, 400,
                #"{"code":"MalformedRequest","message":"the body must be empty, {} or {\"all\":true}"}"#
            ),
        ]
        for (body, status, expected) in cases {
            let response = await answer("POST", "/echo", body: body)
            #expect(response.status == status, "\(body)")
            #expect(text(response) == expected, "\(body)")
            #expect(response.headers.first(named: "Content-Type") == "application/json")
            #expect(response.headers.first(named: "Cache-Control") == "no-store")
        }
    }

    @Test(
        "authorization runs before the body is read: an unauthorised caller gets 401 whatever it sends; decoding errors name the member, never its value"
    )
    func authorizationFirst() async {
        for body in ["", "not json", #"{"loginId":5}"#, #"{"loginId":"x","M1":"y"}"#] {
            let refused = await answer(
                "POST",
                "/guarded",
                headers: [HTTPHeader("Authorization", "Bearer wrong")],
                body: body
            )
            #expect(refused.status == 401, "\(body)")
            #expect(text(refused) == #"{"code":"Unauthorized","message":"no"}"#)
        }
        let bearer = [HTTPHeader("Authorization", "Bearer let-me-in")]
        let accepted = await answer("POST", "/guarded", headers: bearer, body: #"{"loginId":"L-1","M1":"ab"}"#)
        #expect(accepted.status == 200)
        #expect(text(accepted) == #"{"code":"alice","message":"L-1"}"#)
        let cases: [(String, String)] = [
            (#"{"M1":"secret-proof"}"#, "the body: missing loginId"),
            (#"{"loginId":7,"M1":"secret-proof"}"#, "the body: loginId is not a string"),
            ("[1]", "the body is not an object"),
            ("secret-proof", "the body is not JSON, or names a member twice"),
            ("null", "the body: is null"),
            (#"{"loginId":"a","loginId":"b","M1":"secret-proof"}"#, "the body is not JSON, or names a member twice"),
        ]
        for (body, message) in cases {
            let refused = await answer("POST", "/guarded", headers: bearer, body: body)
            #expect(refused.status == 400, "\(body)")
            #expect(text(refused).contains(message), "\(text(refused))")
            #expect(!text(refused).contains("secret-proof"))
        }
    }

    @Test("the login bodies' wire format is the documented one (member names and spelling) at both ends")
    func loginWireFormat() throws {
        let encoder = ServiceJSON.encoder(keys: .asDeclared)
        let begin = SRPLoginWire.BeginRequest(username: "alice", clientPublicValue: "02", deviceToken: "d-1")
        #expect(
            String(decoding: try encoder.encode(begin), as: UTF8.self)
                == #"{"A":"02","deviceToken":"d-1","username":"alice"}"#
        )
        let finish = SRPLoginWire.FinishRequest(loginId: "L-1", clientProof: "ab")
        #expect(String(decoding: try encoder.encode(finish), as: UTF8.self) == #"{"M1":"ab","loginId":"L-1"}"#)
        let read = try JSONAnswer.decode(
            SRPLoginWire.BeginRequest.self,
            from: Array(#"{"username":"bob","A":"0a0b"}"#.utf8)
        )
        #expect(read.username == "bob")
        #expect(read.clientPublicValue == "0a0b")
        #expect(read.deviceToken == nil)
    }

    @Test("the refusal type carries its status and extra fields into the answer")
    func refusalAnswer() {
        let refusal = HTTPRefusal(
            status: 429,
            code: "TooManyRequests",
            message: "later",
            headers: [HTTPHeader("Retry-After", "3")]
        )
        let response = refusal.response
        #expect(response.status == 429)
        #expect(response.headers.first(named: "Retry-After") == "3")
        #expect(
            String(decoding: response.body.plainBytes, as: UTF8.self)
                == #"{"code":"TooManyRequests","message":"later"}"#
        )
        #expect(HTTPRefusal.malformed("x") == HTTPRefusal(status: 400, code: "MalformedRequest", message: "x"))
    }

    @Test(
        "a body with a Content-Type other than application/json is 415 (after authorization); charset parameters and case are fine"
    )
    func contentType() async {
        let bearer = HTTPHeader("Authorization", "Bearer let-me-in")
        let body = #"{"loginId":"L-1","M1":"ab"}"#
        for type in [
            "application/json", "Application/JSON", "application/json; charset=utf-8",
            " application/json ;charset=UTF-8",
        ] {
            #expect(
                await answer("POST", "/guarded", headers: [bearer, HTTPHeader("Content-Type", type)], body: body).status
                    == 200,
                "\(type)"
            )
        }
        for type in [
            "text/plain", "application/jsonx", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
            "",
        ] {
            let refused = await answer(
                "POST",
                "/guarded",
                headers: [bearer, HTTPHeader("Content-Type", type)],
                body: body
            )
            #expect(refused.status == 415, "\(type)")
            #expect(text(refused).contains("UnsupportedMediaType"))
        }
        let unauthorised = await answer(
            "POST",
            "/guarded",
            headers: [HTTPHeader("Content-Type", "text/plain")],
            body: body
        )
        #expect(unauthorised.status == 401)
        // An empty body needs no type.
        #expect(await answer("POST", "/echo").status == 200)
    }

    @Test("wire types that carry tokens show none in their descriptions or mirrors")
    func redactedWireTypes() {
        let begin = SRPLoginWire.BeginRequest(username: "alice", clientPublicValue: "02", deviceToken: "device-secret")
        let finish = SRPLoginWire.FinishAnswer(
            serverProof: "aa",
            username: "alice",
            sessionToken: "session-secret",
            expiresAt: "2026-01-01T00:00:00Z",
            deviceToken: "device-secret"
        )
        let developer = AppServerWire.DeveloperIdentityAnswer(
            identityId: "us-east-1:x",
            token: "token-secret",
            tokenDuration: 900,
            loginsKey: "k"
        )
        for text in [
            String(describing: begin), String(reflecting: begin), String(describing: finish),
            String(describing: developer),
        ]
            + [begin, finish, developer].map({ value in
                var dumped = ""
                dump(value, to: &dumped)
                return dumped
            })
        {
            #expect(!text.contains("secret"), "\(text)")
        }
        #expect(String(describing: begin).contains("alice"))
    }
}
