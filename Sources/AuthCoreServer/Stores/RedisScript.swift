import AuthCore

/// A Lua script of the store, run by name (Redis, "Scripting with Lua": `EVALSHA` names a script by
/// the lower-case hex SHA-1 of its source, the name `SCRIPT LOAD` answers).
///
/// A call sends the 40-byte name, not the source (up to 1.5 KB for the login scripts, which Redis
/// would hash again on every `EVAL`). A server that does not have the script — its first call on
/// that server (a new one, a promoted replica) or after its cache was emptied (`SCRIPT FLUSH`, a
/// restart) — answers `NOSCRIPT` and runs nothing; the call is then sent once more with the source
/// (`EVAL`, which caches it for every connection). That repeat is safe for every script, even one
/// that is never sent twice after a doubtful failure: the first attempt did not run. Nothing is
/// loaded when a connection is made, so set-up (and a failover's reconnections) costs nothing more.
package struct RedisScript: Sendable {
    /// The Lua source, as sent by `EVAL`.
    package let source: [UInt8]
    /// The lower-case hex SHA-1 of ``source`` (40 bytes).
    package let name: [UInt8]

    init(_ source: String) {
        self.source = Array(source.utf8)
        name = Array(Insecure.SHA1.hash(bytes: self.source).hexLowercased.utf8)
    }

    /// `EVALSHA name numkeys key… argument…`
    func evalSHA(keys: [[UInt8]], arguments: [[UInt8]]) -> [[UInt8]] {
        command(Array("EVALSHA".utf8), name, keys: keys, arguments: arguments)
    }

    /// `EVAL source numkeys key… argument…`
    func eval(keys: [[UInt8]], arguments: [[UInt8]]) -> [[UInt8]] {
        command(Array("EVAL".utf8), source, keys: keys, arguments: arguments)
    }

    /// Whether `reply` is Redis's `NOSCRIPT` error: the script is not in the server's cache, and
    /// nothing ran.
    static func isMissing(_ reply: RedisReply) -> Bool {
        guard case .error(let text) = reply else { return false }
        return text.utf8.prefix { $0 != UInt8(ascii: " ") }.elementsEqual("NOSCRIPT".utf8)
    }

    private func command(
        _ verb: [UInt8],
        _ script: [UInt8],
        keys: [[UInt8]],
        arguments: [[UInt8]]
    ) -> [[UInt8]] {
        var command: [[UInt8]] = []
        command.reserveCapacity(3 + keys.count + arguments.count)
        command.append(verb)
        command.append(script)
        command.append(Array(String(keys.count).utf8))
        command += keys
        command += arguments
        return command
    }
}
