import AuthCore
import AuthCoreClients
import Testing

/// Fetches through `provider` on the real clock and checks the half-lifetime rule: the lifetime
/// counts from when the request went out, some moment between `before` and `after`, so the refresh
/// lead must lie between half of what remained at each of those moments, however slow the peer was.
func expectHalfLifetimeRefresh(
    _ provider: some RefreshReporting,
    lifetime: Int64,
    sourceLocation: SourceLocation = #_sourceLocation
)
    async throws
{
    let before = SystemClock().now()
    let credentials = try await provider.credentials()
    let after = SystemClock().now()
    let expiration = try #require(credentials.expiration, sourceLocation: sourceLocation)
    let refresh = try #require(await provider.refreshTime(), sourceLocation: sourceLocation)
    let lead = refresh.seconds(until: expiration)
    let longest = before.seconds(until: expiration)
    let shortest = after.seconds(until: expiration)
    // The server stamps the expiry between `before` and `after`: measured from `after` it is at most
    // the lifetime (plus rounding to whole seconds), however slow the exchange (ThreadSanitizer).
    #expect(shortest <= lifetime + 1, "a \(lifetime) s lifetime: \(expiration.iso8601)", sourceLocation: sourceLocation)
    #expect(
        lead >= shortest / 2 - 1 && lead <= longest / 2 + 1,
        "refresh \(lead) s before expiry; remaining at request \(longest) s, at answer \(shortest) s",
        sourceLocation: sourceLocation
    )
}

/// A caching provider that says when it will refresh.
protocol RefreshReporting: CredentialsProvider {
    func refreshTime() async -> Timestamp?
}

extension RefreshingCredentialsProvider: RefreshReporting {}
extension CognitoIdentityCredentialsProvider: RefreshReporting {}
