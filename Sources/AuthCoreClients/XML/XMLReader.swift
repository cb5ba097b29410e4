package import AuthCore
import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// A small XML document read with Foundation's `XMLParser` (libxml2): the STS answers and the
/// S3/STS/OSS error bodies, as elements with their character data and children.
///
/// Hostile input: documents that are not UTF-8, documents with a DTD (`<!DOCTYPE`, so no entity declarations and no
/// external
/// entities, which the parser never resolves anyway), deeper than ``maximumDepth`` or with more than
/// ``maximumElements`` elements are refused with a typed error; the caller caps the body's size
/// (`NetworkPolicy.controlPlaneMaximumResponseBytes`) before it gets here.
package struct XMLReader {
    /// One element: its name, its own character data (CDATA included, entities decoded), its children.
    package final class Element {
        package let name: String
        package fileprivate(set) var text = ""
        package fileprivate(set) var children: [Element] = []

        init(name: String) { self.name = name }

        /// The first child named `name`.
        package func child(_ name: String) -> Element? { children.first { $0.name == name } }

        /// The first element named `name` in document order below (or at) this one.
        package func first(named name: String) -> Element? {
            if self.name == name { return self }
            for child in children {
                if let found = child.first(named: name) { return found }
            }
            return nil
        }
    }

    package static let maximumDepth = 64
    package static let maximumElements = 10_000

    /// The document element.
    package let root: Element

    /// Parses `bytes`.
    ///
    /// - Throws: ``AuthCoreError/Code/malformedResponse`` naming `context`, for anything that is not
    ///   one well-formed element tree within the limits.
    package init(parsing bytes: [UInt8], context: String) throws(AuthCoreError) {
        if bytes.withUnsafeBufferPointer({ Self.containsDoctype($0) }) {
            throw AuthCoreError(.malformedResponse, "\(context): the XML answer declares a DTD")
        }
        // Foundation's XMLParser traps on an element name that is not UTF-8 (found by fuzzing:
        // libxml2 hands such a name on); the answers read here are UTF-8, so anything else is refused first.
        guard bytes.withUnsafeBytes({ isValidUTF8($0) }) else {
            throw AuthCoreError(.malformedResponse, "\(context): the XML answer is not UTF-8")
        }
        let parser = XMLParser(data: Data(bytes))
        parser.shouldResolveExternalEntities = false
        let builder = TreeBuilder()
        parser.delegate = builder
        let parsed = parser.parse()
        if let problem = builder.problem { throw AuthCoreError(.malformedResponse, "\(context): \(problem)") }
        // Checked here too: the parser does not report every unclosed or mismatched element.
        guard parsed, builder.stack.isEmpty, let root = builder.root else {
            throw AuthCoreError(.malformedResponse, "\(context): the answer is not well-formed XML")
        }
        self.root = root
    }

    /// The first element named `name` in document order.
    package func first(named name: String) -> Element? { root.first(named: name) }

    /// Whether `<!DOCTYPE` occurs (ASCII case-insensitive).
    static func containsDoctype(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let marker = Array("<!doctype".utf8)
        guard bytes.count >= marker.count else { return false }
        for start in 0...(bytes.count - marker.count) where bytes[start] == UInt8(ascii: "<") {
            var matches = true
            for (offset, expected) in marker.enumerated() {
                let byte = bytes[start + offset]
                if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != expected {
                    matches = false
                    break
                }
            }
            if matches { return true }
        }
        return false
    }

    /// Builds the tree from the parser's events; stops the parser at the first limit crossed.
    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var root: Element?
        var stack: [Element] = []
        var elements = 0
        var problem: String?

        func parser(
            _ parser: XMLParser,
            didStartElement elementName: String,
            namespaceURI: String?,
            qualifiedName qName: String?,
            attributes attributeDict: [String: String] = [:]
        ) {
            elements += 1
            guard stack.count < XMLReader.maximumDepth, elements <= XMLReader.maximumElements else {
                problem =
                    "the XML answer is nested deeper than \(XMLReader.maximumDepth) or has more than \(XMLReader.maximumElements) elements"
                parser.abortParsing()
                return
            }
            let element = Element(name: elementName)
            if let parent = stack.last {
                parent.children.append(element)
            } else if root == nil {
                root = element
            }
            stack.append(element)
        }

        func parser(
            _ parser: XMLParser,
            didEndElement elementName: String,
            namespaceURI: String?,
            qualifiedName qName: String?
        ) {
            guard stack.last?.name == elementName else {
                problem = "the XML answer closes <\(elementName.prefix(64))> where another element is open"
                parser.abortParsing()
                return
            }
            _ = stack.popLast()
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            if problem == nil { problem = "the answer is not well-formed XML" }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            stack.last?.text += String(decoding: CDATABlock, as: UTF8.self)
        }
    }
}
