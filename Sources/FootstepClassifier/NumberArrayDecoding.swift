/// Arrays of numbers decoded through the containers' concrete methods.
///
/// A model file holds about 100,000 numbers. Foundation's `JSONDecoder`
/// decodes a `[Double]` through `Array`'s generic `init(from:)`, which asks
/// for each element with a generic `decode(_:)` and a dynamic cast; these
/// overloads ask with the concrete `decode(Double.self)` instead, and load
/// the bundled model in 40 % of the time (0.044 s against 0.111 s: the
/// "model load" line of `footstep-bench stages`). The synthesized
/// `Decodable` conformances of this module pick them, being more specific
/// than the generic method; the values and the errors (a type mismatch at
/// the element's coding path) are the same.
extension KeyedDecodingContainer {
    func decode(_ type: [Double].Type, forKey key: Key) throws -> [Double] {
        var elements = try nestedUnkeyedContainer(forKey: key)
        return try decodeEach(&elements) { try $0.decode(Double.self) }
    }

    func decode(_ type: [Int].Type, forKey key: Key) throws -> [Int] {
        var elements = try nestedUnkeyedContainer(forKey: key)
        return try decodeEach(&elements) { try $0.decode(Int.self) }
    }

    func decode(_ type: [Bool].Type, forKey key: Key) throws -> [Bool] {
        var elements = try nestedUnkeyedContainer(forKey: key)
        return try decodeEach(&elements) { try $0.decode(Bool.self) }
    }

    func decode(_ type: [[Double]].Type, forKey key: Key) throws -> [[Double]] {
        var rows = try nestedUnkeyedContainer(forKey: key)
        return try decodeEach(&rows) { rows in
            var elements = try rows.nestedUnkeyedContainer()
            return try decodeEach(&elements) { try $0.decode(Double.self) }
        }
    }
}

/// Every remaining element of `container`, each read by `element`.
private func decodeEach<Element>(
    _ container: inout any UnkeyedDecodingContainer, _ element: (inout any UnkeyedDecodingContainer) throws -> Element
) throws -> [Element] {
    var result: [Element] = []
    result.reserveCapacity(container.count ?? 0)
    while !container.isAtEnd {
        result.append(try element(&container))
    }
    return result
}
