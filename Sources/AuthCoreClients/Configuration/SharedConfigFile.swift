package import AuthCore

/// One AWS shared configuration or credentials file (`~/.aws/config`, `~/.aws/credentials`), parsed
/// in the INI dialect the AWS CLI reads: Python's `configparser.RawConfigParser` with its defaults,
/// as botocore's `raw_config_parse` uses it.
///
/// - A line whose first non-blank byte is `#` or `;` is a comment; nothing is an inline comment.
/// - `[name]` opens a section (the name is everything between the first `[` and the last `]`); a
///   section may appear once. `[DEFAULT]`'s keys apply to every section that does not set them.
/// - `key = value` or `key: value` (the first `=` or `:` splits); keys are lower-cased, both sides
///   trimmed; a key may appear once per section.
/// - A line indented deeper than its key's line continues the value (joined with newlines, blank
///   lines inside kept); a value that starts on the next line (`s3 =` then indented `key = value`
///   lines) is a nested block, one level deep.
///
/// Lines end at LF, CRLF or CR. The bytes must be UTF-8. Every problem is an
/// `AuthCoreError.Code.malformedInput` naming the file and the line.
package struct SharedConfigFile: Sendable {
    /// A value: text, or a nested block's keys and values.
    package enum Value: Sendable, Equatable {
        case text(String)
        case nested([String: String])

        /// The text, nil for a nested block.
        package var text: String? {
            if case .text(let value) = self { return value }
            return nil
        }
    }

    /// One section, with its keys (lower-cased) and values.
    package struct Section: Sendable, CustomStringConvertible, CustomReflectable {
        package let name: String
        /// The line of its header.
        package let line: Int
        package var values: [String: Value]

        /// The name and keys, never the values (they include secret keys).
        package var description: String {
            "Section(\(name), line \(line), keys: \(values.keys.sorted().joined(separator: ", ")))"
        }
        package var customMirror: Mirror { Mirror(self, children: ["description": description], displayStyle: .struct) }
    }

    /// The most values the sections may hold in all once `[DEFAULT]`'s are merged into each (a 1 MiB
    /// file of many sections and many default keys would otherwise multiply into billions).
    package static let maximumMergedValues = 1 << 17

    /// The file's path, as named in errors.
    package let path: String
    /// The sections in file order (`DEFAULT`'s keys merged into each).
    package let sections: [Section]

    /// Parses `bytes`, naming `path` in errors.
    package init(parsing bytes: [UInt8], path: String) throws(AuthCoreError) {
        self.path = path
        var parser = Parser(path: path)
        try bytes.withUnsafeBufferPointer { (buffer) throws(AuthCoreError) in try parser.parse(buffer) }
        sections = try parser.finish()
    }

    /// The section named exactly `name`.
    package func section(_ name: String) -> Section? { sections.first { $0.name == name } }
}

// MARK: - The parser

/// configparser's state machine over lines of bytes.
private struct Parser {
    struct PendingSection {
        var name: String
        var line: Int
        var keys: [String] = []
        /// Each key's value lines (joined at the end) and the line it started on.
        var lines: [String: (parts: [String], line: Int)] = [:]
    }

    let path: String
    var sections: [PendingSection] = []
    var sectionNames: Set<[UInt8]> = []
    var defaults = PendingSection(name: "DEFAULT", line: 0)
    /// The section lines go to: an index into `sections`, -1 for `DEFAULT`, nil before the first header.
    var current: Int?
    var currentKey: String?
    var indentLevel = Int.max
    /// The first malformed option line (configparser reports it after reading the whole file).
    var firstBadLine: Int?

    init(path: String) { self.path = path }

    func error(_ line: Int, _ message: String) -> AuthCoreError {
        AuthCoreError(.malformedInput, "\(path):\(line): \(message)")
    }

    mutating func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(AuthCoreError) {
        // The whole file must be UTF-8, comments included (Python decodes it before parsing).
        if String(validating: bytes, as: UTF8.self) == nil {
            var line = 1
            var lineStart = 0
            for (index, byte) in bytes.enumerated() where byte == 0x0A {
                if String(validating: UnsafeBufferPointer(rebasing: bytes[lineStart..<index]), as: UTF8.self) == nil {
                    break
                }
                line &+= 1
                lineStart = index &+ 1
            }
            throw error(line, "not UTF-8")
        }
        var start = 0
        var lineNumber = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != 0x0A && bytes[end] != 0x0D { end &+= 1 }
            lineNumber &+= 1
            try line(UnsafeBufferPointer(rebasing: bytes[start..<end]), number: lineNumber)
            // CRLF is one line ending; a lone CR or LF is one too.
            if end < bytes.count && bytes[end] == 0x0D && end + 1 < bytes.count && bytes[end + 1] == 0x0A {
                start = end + 2
            } else {
                start = end + 1
            }
        }
    }

    mutating func line(_ raw: UnsafeBufferPointer<UInt8>, number: Int) throws(AuthCoreError) {
        let trimmed = ASCIIText.trimmingWhitespace(raw)
        let isComment = trimmed.first == UInt8(ascii: "#") || trimmed.first == UInt8(ascii: ";")
        if trimmed.isEmpty || isComment {
            // A blank line (not a comment) inside a value is kept as an empty line of it; neither ends
            // the value (a deeper-indented line after it still continues it).
            if !isComment, let key = currentKey { appendBlank(to: key) }
            return
        }
        let indent = ASCIIText.leadingWhitespaceCount(raw)
        let text = try decode(trimmed, line: number)
        if current != nil, let key = currentKey, indent > indentLevel {
            appendContinuation(text, to: key)
            return
        }
        indentLevel = indent
        if trimmed.first == UInt8(ascii: "["), let close = trimmed.lastIndex(of: UInt8(ascii: "]")), close > 1 {
            let name = try decode(UnsafeBufferPointer(rebasing: trimmed[1..<close]), line: number)
            try openSection(name, line: number)
            currentKey = nil
            return
        }
        guard current != nil else {
            throw error(number, "a key outside any section (the file must start with a [section] header)")
        }
        guard let delimiter = trimmed.firstIndex(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: ":") }),
            delimiter > 0
        else {
            if firstBadLine == nil { firstBadLine = number }
            currentKey = nil
            return
        }
        let key = ASCIIText.lowercased(
            ASCIIText.trimmingWhitespace(UnsafeBufferPointer(rebasing: trimmed[..<delimiter]))
        )
        let value = ASCIIText.trimmingWhitespace(UnsafeBufferPointer(rebasing: trimmed[(delimiter + 1)...]))
        let keyText = try decode(key, line: number)
        try setValue(keyText, try decode(value, line: number), line: number)
    }

    func decode(_ bytes: UnsafeBufferPointer<UInt8>, line: Int) throws(AuthCoreError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw error(line, "not UTF-8") }
        return text
    }

    func decode(_ bytes: [UInt8], line: Int) throws(AuthCoreError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw error(line, "not UTF-8") }
        return text
    }

    mutating func openSection(_ name: String, line: Int) throws(AuthCoreError) {
        if name == "DEFAULT" {  // may reopen (configparser does not count it), its keys still once each
            current = -1
            return
        }
        guard sectionNames.insert(Array(name.utf8)).inserted else {
            throw error(line, "section [\(name)] appears twice")
        }
        sections.append(PendingSection(name: name, line: line))
        current = sections.count - 1
    }

    mutating func withCurrent(_ body: (inout PendingSection) throws(AuthCoreError) -> Void) throws(AuthCoreError) {
        guard let index = current else { return }
        if index < 0 { try body(&defaults) } else { try body(&sections[index]) }
    }

    mutating func setValue(_ key: String, _ value: String, line: Int) throws(AuthCoreError) {
        let path = self.path
        try withCurrent { (section) throws(AuthCoreError) in
            guard section.lines[key] == nil else {
                throw AuthCoreError(.malformedInput, "\(path):\(line): key '\(key)' appears twice in [\(section.name)]")
            }
            section.keys.append(key)
            section.lines[key] = ([value], line)
        }
        currentKey = key
    }

    mutating func appendContinuation(_ text: String, to key: String) {
        try? withCurrent { section in section.lines[key]?.parts.append(text) }
    }

    mutating func appendBlank(to key: String) {
        try? withCurrent { section in section.lines[key]?.parts.append("") }
    }

    /// Joins multi-line values, parses nested blocks, merges `DEFAULT` into every section.
    func finish() throws(AuthCoreError) -> [SharedConfigFile.Section] {
        if let bad = firstBadLine {
            throw error(bad, "a line that is neither a [section], a key = value nor a comment")
        }
        let defaultValues = try values(of: defaults)
        let merged = sections.reduce(0) { $0 &+ $1.keys.count &+ defaultValues.count }
        guard merged <= SharedConfigFile.maximumMergedValues else {
            throw AuthCoreError(
                .inputTooLarge,
                "\(path): \(sections.count) sections with [DEFAULT]'s \(defaultValues.count) keys merged in exceed \(SharedConfigFile.maximumMergedValues) values"
            )
        }
        var result: [SharedConfigFile.Section] = []
        for pending in sections {
            var merged = defaultValues
            for (key, value) in try values(of: pending) { merged[key] = value }
            result.append(SharedConfigFile.Section(name: pending.name, line: pending.line, values: merged))
        }
        return result
    }

    func values(of section: PendingSection) throws(AuthCoreError) -> [String: SharedConfigFile.Value] {
        var values: [String: SharedConfigFile.Value] = [:]
        for key in section.keys {
            guard let (parts, line) = section.lines[key] else { continue }
            var joined = parts.joined(separator: "\n")
            while let last = joined.utf8.last, ASCIIText.isWhitespace(last) { joined.removeLast() }
            if joined.utf8.first == UInt8(ascii: "\n") {
                values[key] = .nested(try nested(joined, key: key, line: line))
            } else {
                values[key] = .text(joined)
            }
        }
        return values
    }

    /// botocore's `_parse_nested`: each non-blank line `key = value` (split at the first `=`); errors
    /// name the line of the block's key.
    func nested(_ text: String, key: String, line: Int) throws(AuthCoreError) -> [String: String] {
        var result: [String: String] = [:]
        for part in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            let trimmed = Array(part).withUnsafeBufferPointer { Array(ASCIIText.trimmingWhitespace($0)) }
            if trimmed.isEmpty { continue }
            guard let equals = trimmed.firstIndex(of: UInt8(ascii: "=")) else {
                throw error(line, "the nested block of '\(key)' has a line without '=' (expected key = value)")
            }
            let name = trimmed[..<equals].withUnsafeBufferPointer { Array(ASCIIText.trimmingWhitespace($0)) }
            let value = trimmed[(equals + 1)...].withUnsafeBufferPointer { Array(ASCIIText.trimmingWhitespace($0)) }
            result[try decode(name, line: line)] = try decode(value, line: line)
        }
        return result
    }
}

/// Byte helpers for ASCII text in configuration files.
enum ASCIIText {
    /// Space, tab, LF, VT, FF, CR (Python's `str.strip()` on ASCII).
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

    static func trimmingWhitespace(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var lower = 0
        var upper = bytes.count
        while lower < upper && isWhitespace(bytes[lower]) { lower &+= 1 }
        while upper > lower && isWhitespace(bytes[upper &- 1]) { upper &-= 1 }
        return UnsafeBufferPointer(rebasing: bytes[lower..<upper])
    }

    static func leadingWhitespaceCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var count = 0
        while count < bytes.count && isWhitespace(bytes[count]) { count &+= 1 }
        return count
    }

    static func lowercased(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        bytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }
}
