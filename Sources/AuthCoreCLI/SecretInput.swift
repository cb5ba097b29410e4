import AuthCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Secrets the CLI reads (passwords on stdin, keys and passwords in the environment) go straight into
// wiping storage: no `[UInt8]` or `String` copy is made, and every buffer they pass through is wiped
// with OPENSSL_cleanse (`make zeroize-check` counts freed heap blocks that still hold them).

/// Reads all of stdin into wiping storage (at most `limit` bytes) and drops one trailing `\n` or
/// `\r\n` (design.md: nothing else is trimmed from a password).
func readSecretStandardInput(limit: Int) throws(CommandFailure) -> SecureBytes {
    try readSecretStandardInput(limit: limit, prompt: nil)
}

/// Reads a secret from standard input as ``readSecretStandardInput(limit:)`` does; when standard input
/// is a terminal and `prompt` is given, the prompt goes to stderr and the terminal's echo is off while
/// the line is typed. The terminal is restored on every return and throw, and on SIGINT, SIGTERM,
/// SIGHUP, SIGQUIT and SIGTSTP during the prompt (then the signal takes its default course), as BSD's
/// `readpassphrase` does; if echo cannot be turned off, it refuses to prompt rather than show the secret.
func readSecretStandardInput(limit: Int, prompt: String?) throws(CommandFailure) -> SecureBytes {
    guard let prompt, isatty(0) == 1 else { return try readSecretBytes(limit: limit) }
    guard tcgetattr(0, promptSavedTerminal) == 0 else { return try readSecretBytes(limit: limit) }
    promptQuietTerminal.pointee = promptSavedTerminal.pointee
    promptQuietTerminal.pointee.c_lflag &= ~tcflag_t(ECHO)
    let previous = promptSignals.map { (signal: $0, handler: signal($0, restoreTerminalAndReraise)) }
    defer {
        _ = tcsetattr(0, TCSAFLUSH, promptSavedTerminal)
        for (number, handler) in previous { _ = signal(number, handler) }
    }
    guard tcsetattr(0, TCSAFLUSH, promptQuietTerminal) == 0 else {
        throw CommandFailure(
            "cannot turn off the terminal's echo: give the secret on stdin from a pipe or in the environment"
        )
    }
    writeAll(2, prompt)
    defer { printError("") }
    return try readSecretBytes(limit: limit, stopAtNewline: true)
}

/// The signals that must not leave the terminal without echo.
private let promptSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP]

/// The terminal settings before a prompt, and with echo off. invariant: written only by the prompt,
/// before the signal handlers that read them are installed, and read only by those while it waits
/// (one prompt at a time: the CLI reads one secret per run). Each lives in a zeroed block of 256
/// bytes, larger than any `struct termios`: a sanitized build's `termios` global is smaller than what
/// `tcgetattr` writes (AddressSanitizer reports it).
nonisolated(unsafe) private let promptSavedTerminal = terminalSettingsBlock()
nonisolated(unsafe) private let promptQuietTerminal = terminalSettingsBlock()

private func terminalSettingsBlock() -> UnsafeMutablePointer<termios> {
    let block = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 16)
    block.initializeMemory(as: UInt8.self, repeating: 0, count: 256)
    return block.bindMemory(to: termios.self, capacity: 1)
}

/// Restores the terminal, then lets the signal do what it would have done (async-signal-safe calls only).
private let restoreTerminalAndReraise: @convention(c) (Int32) -> Void = { number in
    _ = tcsetattr(0, TCSANOW, promptSavedTerminal)
    _ = signal(number, SIG_DFL)
    _ = raise(number)
}

/// The bytes of standard input up to its end (or, for a prompt, the first newline), in wiping storage.
private func readSecretBytes(limit: Int, stopAtNewline: Bool = false) throws(CommandFailure) -> SecureBytes {
    var failure: CommandFailure?
    var length = 0
    // One buffer of limit + 1 bytes, read into in place: it never grows, so no copy is left behind.
    let buffer = SecureBytes(count: limit + 1) { raw in
        while length <= limit {
            let n = read(0, raw.baseAddress! + length, limit + 1 - length)  // invariant: count > 0
            if n < 0 {
                if errno == EINTR { continue }
                failure = CommandFailure("cannot read standard input")
                return
            }
            if n == 0 { return }
            length += n
            if stopAtNewline, raw[length - 1] == UInt8(ascii: "\n") { return }
        }
        failure = CommandFailure("standard input exceeds \(limit) bytes")
    }
    if let failure { throw failure }
    return buffer.prefix(length - trailingNewlineLength(buffer, length: length))
}

/// The length of one trailing `\n` or `\r\n` within the first `length` bytes (0, 1 or 2).
private func trailingNewlineLength(_ bytes: SecureBytes, length: Int) -> Int {
    bytes.withUnsafeBytes { raw in
        guard length >= 1, raw[length - 1] == UInt8(ascii: "\n") else { return 0 }
        return length >= 2 && raw[length - 2] == UInt8(ascii: "\r") ? 2 : 1
    }
}

/// Takes a secret from the environment: copies it into wiping storage, overwrites the variable's
/// value in place and removes the variable, so the process keeps no other copy. An empty value counts
/// as unset (design.md).
func takeSecretEnvironment(_ name: String) -> SecureBytes? {
    guard let raw = getenv(name) else { return nil }
    let count = strlen(raw)
    guard count > 0 else { return nil }
    let value = SecureBytes(copying: UnsafeRawBufferPointer(start: raw, count: count))
    wipeSecretMemory(UnsafeMutableRawBufferPointer(start: raw, count: count))
    unsetenv(name)
    return value
}
