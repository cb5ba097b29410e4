import AuthCore
import AuthCoreClients

/// A transport that answers from a script and records what it was sent (for state-machine and
/// retry tests; the real-server tests are in AuthCoreIntegrationTests).
final class ScriptedTransport: HTTPTransport {
    private let state: Locked<(responses: [HTTPResponse], sent: [HTTPRequest])>

    init(_ responses: [HTTPResponse]) { state = Locked((responses, [])) }

    var sent: [HTTPRequest] { state.withLock { $0.sent } }

    func send(_ request: HTTPRequest) async throws(AuthCoreError) -> HTTPResponse {
        try state.withLock { state throws(AuthCoreError) -> HTTPResponse in
            state.sent.append(request)
            guard !state.responses.isEmpty else { throw AuthCoreError(.transportFailure, "script exhausted") }
            return state.responses.removeFirst()
        }
    }
}
