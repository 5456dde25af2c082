/// Base64url (RFC 4648 §5), the encoding Web Push uses everywhere: subscription keys, the
/// VAPID public key, the JWT segments. Written here rather than taken from ExtrasBase64 so the
/// push code depends on swift-crypto and Foundation only, and because decoding must be
/// lenient in exactly one way: browsers hand out keys without padding, some libraries add it.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The text of `bytes`, without padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index < input.count {
            let count = min(3, input.count - index)
            var group = UInt32(input[index]) << 16
            if count > 1 { group |= UInt32(input[index + 1]) << 8 }
            if count > 2 { group |= UInt32(input[index + 2]) }
            // 3 bytes give 4 characters, 2 give 3, 1 gives 2; padding is left off.
            for position in 0...count {
                output.append(alphabet[Int((group >> UInt32(18 - 6 * position)) & 0x3F)])
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of `text`, with or without `=` padding; `nil` for any other character, for
    /// padding that is not at the end or not of the right length, or for an impossible length.
    public static func decode(_ text: String) -> [UInt8]? {
        var characters = Array(text.utf8)
        if let firstPad = characters.firstIndex(of: UInt8(ascii: "=")) {
            // Padding, when present, must complete the text to a multiple of 4 and be all `=`.
            guard characters.count % 4 == 0, characters.count - firstPad <= 2,
                characters[firstPad...].allSatisfy({ $0 == UInt8(ascii: "=") })
            else { return nil }
            characters.removeSubrange(firstPad...)
        }
        guard characters.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(characters.count * 3 / 4)
        var group: UInt32 = 0
        var bits = 0
        for character in characters {
            guard let value = sextet(character) else { return nil }
            group = (group << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8((group >> UInt32(bits)) & 0xFF))
            }
        }
        return output
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
