import AuthCore
import Dispatch

/// A token bucket's parameters: a client may make `burst` requests at once, then
/// `requestsPerSecond` on average.
public struct RateLimit: Sendable, Equatable {
    /// The sustained rate.
    public let requestsPerSecond: Double
    /// How many requests may come at once.
    public let burst: Double

    /// A limit of `requestsPerSecond` (at least one request in 1,000 seconds) with bursts of `burst`
    /// (at least 1); values outside are taken to those bounds.
    public init(requestsPerSecond: Double, burst: Double) {
        self.requestsPerSecond = requestsPerSecond.isFinite ? Swift.max(0.001, requestsPerSecond) : 0.001
        self.burst = burst.isFinite ? Swift.max(1, burst) : 1
    }
}

/// The limits per client address and per network (the addresses that share a prefix) on the
/// unauthenticated endpoints (`/srp/*`).
public struct AddressRateLimits: Sendable, Equatable {
    /// Per address (an IPv6 client per /64, the block one subscriber holds); nil: none.
    public var perAddress: RateLimit? = RateLimit(requestsPerSecond: 5, burst: 20)
    /// Per network; nil: none.
    public var perNetwork: RateLimit? = RateLimit(requestsPerSecond: 50, burst: 200)
    /// The network of an IPv4 address: its first this many bits.
    public var ipv4NetworkPrefixLength = 24
    /// The network of an IPv6 address: its first this many bits.
    public var ipv6NetworkPrefixLength = 48
    /// The most addresses (and networks) followed at once; past it, buckets that have refilled are
    /// forgotten first, then the least recently used.
    public var maximumTrackedClients = 100_000

    /// The defaults: 5 requests a second (bursts of 20) per address, 50 (bursts of 200) per /24 or
    /// /48 network, 100,000 clients followed.
    public init() {}
}

/// Token buckets per client address and per network, checked when a request's head has arrived
/// (before its body is read or any work is done): a refused request costs a lock, two dictionary
/// lookups and an answer. The buckets are this process's: each instance limits what it is sent.
public final class RateLimiter: Sendable {
    /// The limits.
    public let limits: AddressRateLimits
    private let now: @Sendable () -> UInt64
    private let state: Locked<State>

    struct Bucket {
        var tokens: Double
        var updated: UInt64
        var lastUsed: UInt64
    }

    struct State {
        var addresses: [[UInt8]: Bucket] = [:]
        var networks: [[UInt8]: Bucket] = [:]
    }

    /// A limiter with `limits`; `now` gives monotonic nanoseconds (tests pass their own; by default
    /// the system's uptime clock).
    public init(limits: AddressRateLimits, now: (@Sendable () -> UInt64)? = nil) {
        self.limits = limits
        self.now = now ?? { DispatchTime.now().uptimeNanoseconds }
        state = Locked(State())
    }

    /// Takes a token from the address's bucket and the network's; nil when both had one, else how
    /// long until the emptier one has a token again (and nothing is taken).
    public func admit(_ address: ClientAddress) -> Duration? {
        let time = now()
        let addressKey = address.network(prefixBits: address.isIPv4 ? 32 : 64)
        let networkKey = address.network(
            prefixBits: address.isIPv4 ? limits.ipv4NetworkPrefixLength : limits.ipv6NetworkPrefixLength
        )
        return state.withLock { state in
            var wait: Double = 0
            let own = limits.perAddress.map { Self.refilled(state.addresses[addressKey], limit: $0, at: time) }
            let shared = limits.perNetwork.map { Self.refilled(state.networks[networkKey], limit: $0, at: time) }
            if let own, let limit = limits.perAddress, own.tokens < 1 {
                wait = Swift.max(wait, (1 - own.tokens) / limit.requestsPerSecond)
            }
            if let shared, let limit = limits.perNetwork, shared.tokens < 1 {
                wait = Swift.max(wait, (1 - shared.tokens) / limit.requestsPerSecond)
            }
            if var own {
                if wait == 0 { own.tokens -= 1 }
                Self.store(
                    own,
                    at: addressKey,
                    in: &state.addresses,
                    limit: limits.maximumTrackedClients,
                    limitOf: limits.perAddress,
                    time: time
                )
            }
            if var shared {
                if wait == 0 { shared.tokens -= 1 }
                Self.store(
                    shared,
                    at: networkKey,
                    in: &state.networks,
                    limit: limits.maximumTrackedClients,
                    limitOf: limits.perNetwork,
                    time: time
                )
            }
            return wait == 0 ? nil : .nanoseconds(Int64((wait * 1e9).rounded(.up)))
        }
    }

    /// The number of addresses and networks followed (tests).
    public var trackedCount: (addresses: Int, networks: Int) {
        state.withLock { ($0.addresses.count, $0.networks.count) }
    }

    private static func refilled(_ bucket: Bucket?, limit: RateLimit, at time: UInt64) -> Bucket {
        guard var bucket else { return Bucket(tokens: limit.burst, updated: time, lastUsed: time) }
        let elapsed = Double(time &- bucket.updated) / 1e9
        bucket.tokens = Swift.min(limit.burst, bucket.tokens + elapsed * limit.requestsPerSecond)
        bucket.updated = time
        bucket.lastUsed = time
        return bucket
    }

    /// Stores `bucket`; a full table first forgets buckets that have refilled (they are the same as
    /// none), then, if it is still full, the least recently used tenth.
    private static func store(
        _ bucket: Bucket,
        at key: [UInt8],
        in table: inout [[UInt8]: Bucket],
        limit count: Int,
        limitOf rate: RateLimit?,
        time: UInt64
    ) {
        if table[key] == nil, table.count >= count, let rate {
            table = table.filter {
                Double(time &- $0.value.updated) / 1e9 * rate.requestsPerSecond + $0.value.tokens < rate.burst
            }
            if table.count >= count {
                let oldest = table.sorted { $0.value.lastUsed < $1.value.lastUsed }.prefix(Swift.max(1, count / 10))
                    .map(\.key)
                for old in oldest { table[old] = nil }
            }
        }
        table[key] = bucket
    }
}
