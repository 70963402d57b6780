// JSON's string literal, written once: the library's JSON forms (an explanation's `json`) and the
// `interlock` command's output escape text the same way.

/// Writing text as JSON.
public enum JSONText {
    /// `text` as a JSON string literal: quoted, with `"` and `\` escaped, newline, carriage return
    /// and tab by name and every other control character as `\u00XX`.
    ///
    /// - Parameter text: Any text.
    /// - Returns: The literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for u in text.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }
}
