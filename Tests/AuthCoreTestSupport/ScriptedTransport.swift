public import AuthCore
public import AuthCoreClients
import Foundation

/// A transport that answers from a script and records what it was sent (for state-machine and
/// retry tests; the real-server tests are in AuthCoreIntegrationTests).
public final class ScriptedTransport: HTTPTransport {
    private let state: Locked<(responses: [HTTPResponse], sent: [HTTPRequest])>

    public init(_ responses: [HTTPResponse]) {
        state = Locked((responses, []))
    }

    public var sent: [HTTPRequest] { state.withLock { $0.sent } }

    public func send(_ request: HTTPRequest) async throws(AuthCoreError) -> HTTPResponse {
        try state.withLock { state throws(AuthCoreError) -> HTTPResponse in
            state.sent.append(request)
            guard !state.responses.isEmpty else { throw AuthCoreError(.transportFailure, "script exhausted") }
            return state.responses.removeFirst()
        }
    }
}

extension HTTPResponse {
    /// A JSON 1.1 answer of `status` with `object` as its body and a request id.
    public static func jsonAnswer(_ status: Int, _ object: [String: Any]) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: [
                HTTPHeader("Content-Type", "application/x-amz-json-1.1"),
                HTTPHeader("x-amzn-RequestId", "req-\(status)"),
            ],
            body: [UInt8]((try? JSONSerialization.data(withJSONObject: object)) ?? Data())
        )
    }
}
