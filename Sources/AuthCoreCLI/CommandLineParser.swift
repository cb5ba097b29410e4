import AuthCore

/// A usage error: exit status 2, one line on stderr.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A failure: exit status 1, one line on stderr (plus optional detail lines).
struct CommandFailure: Error {
    let message: String
    let detail: String?
    init(_ message: String, detail: String? = nil) {
        self.message = message
        self.detail = detail
    }
}

/// Help was asked for: print it and exit 0.
struct HelpRequested: Error { let text: String }

/// A declared option of a command.
struct OptionSpec {
    enum Kind { case flag, value, repeatedValue }
    let names: [String]  // e.g. ["-X", "--method"]
    let kind: Kind
    var key: String { names.last! }  // invariant: every spec has at least one name (declared in code)
}

/// Parsed arguments: options by their long name, and positionals.
struct ParsedArguments {
    // bytes-lint: option names from the command's own table (fixed ASCII).
    var values: [String: [String]] = [:]
    // bytes-lint: option names from the command's own table (fixed ASCII).
    var flags: Set<String> = []
    var positionals: [String] = []

    func value(_ key: String) -> String? { values[key]?.last }
    func all(_ key: String) -> [String] { values[key] ?? [] }
    func has(_ key: String) -> Bool { flags.contains(key) }

    func required(_ key: String) throws(UsageError) -> String {
        guard let v = value(key), !v.isEmpty else { throw UsageError("missing required option \(key)") }
        return v
    }

    func integer(_ key: String, expecting what: String = "an integer") throws(UsageError) -> Int? {
        guard let text = value(key) else { return nil }
        guard let n = Int(text) else { throw UsageError("\(key) expects \(what), got '\(text)'") }
        return n
    }
}

/// Parses `arguments` against `specs` (`--name value`, `--name=value`, short `-X value`, `--` ends options).
func parseArguments(_ arguments: ArraySlice<String>, specs: [OptionSpec], help: String) throws -> ParsedArguments {
    var parsed = ParsedArguments()
    var index = arguments.startIndex
    var optionsEnded = false
    while index < arguments.endIndex {
        let argument = arguments[index]
        index += 1
        if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
            parsed.positionals.append(argument)
            continue
        }
        if argument == "--" {
            optionsEnded = true
            continue
        }
        if argument == "-h" || argument == "--help" { throw HelpRequested(text: help) }
        var name = argument
        var inlineValue: String?
        if argument.hasPrefix("--"), let (option, value) = argument.cutOnce(atFirst: UInt8(ascii: "=")) {
            name = option
            inlineValue = value
        }
        guard let spec = specs.first(where: { $0.names.contains(name) }) else {
            throw UsageError("unknown option \(name)\(didYouMean(name, among: specs.flatMap(\.names) + ["--help"]))")
        }
        switch spec.kind {
        case .flag:
            if inlineValue != nil { throw UsageError("\(name) takes no value") }
            parsed.flags.insert(spec.key)
        case .value, .repeatedValue:
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.endIndex else { throw UsageError("\(name) needs a value") }
                value = arguments[index]
                index += 1
            }
            if spec.kind == .value, parsed.values[spec.key] != nil {
                throw UsageError("\(name) given more than once")
            }
            parsed.values[spec.key, default: []].append(value)
        }
    }
    return parsed
}

/// `; did you mean 'X'?` for the candidate closest to `word` (at most two edits, or one for a word of
/// three characters or fewer), or nothing.
func didYouMean(_ word: String, among candidates: [String]) -> String {
    let limit = word.count <= 3 ? 1 : 2
    guard word.count <= 64 else { return "" }  // no suggestion for a long argument (and no quadratic work on it)
    let scored = candidates.filter { abs($0.count - word.count) <= limit }.map {
        (candidate: $0, distance: editDistance(word, $0))
    }
    .filter { $0.distance <= limit }
    guard let best = scored.min(by: { $0.distance < $1.distance }) else { return "" }
    return "; did you mean '\(best.candidate)'?"
}

/// A usage error for an unknown subcommand of `command`, with a near-miss suggestion.
func unknownSubcommand(_ name: String, of command: String, among candidates: [String]) -> UsageError {
    let prefix = command.isEmpty ? "unknown subcommand" : "unknown \(command) subcommand"
    let suggestion = didYouMean(name, among: candidates)
    return UsageError(
        "\(prefix) '\(name)'\(suggestion.isEmpty ? " (try 'authcore \(command.isEmpty ? "" : command + " ")--help')" : suggestion)"
    )
}

/// The Levenshtein distance of two short words (option and command names), over Unicode scalars.
func editDistance(_ a: String, _ b: String) -> Int {
    let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
    guard !x.isEmpty else { return y.count }
    guard !y.isEmpty else { return x.count }
    var previous = Array(0...y.count)
    var current = [Int](repeating: 0, count: y.count + 1)
    for i in 1...x.count {
        current[0] = i
        for j in 1...y.count {
            current[j] = Swift.min(
                previous[j] + 1,
                current[j - 1] + 1,
                previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1)
            )
        }
        swap(&previous, &current)
    }
    return previous[y.count]
}
