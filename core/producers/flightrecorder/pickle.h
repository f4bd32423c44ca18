#pragma once

// A data-only reader of Python pickles (protocols 2 to 5), for PyTorch Flight Recorder dumps.
//
// Pickle is a program for a small stack machine, and some of its opcodes import and call Python
// objects (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX, EXT1/2/4, PERSID,
// BINPERSID): reading an untrusted pickle with Python's own `pickle.load` runs whatever it
// names. This reader knows only the opcodes that build plain data (None, bools, ints, floats,
// str, bytes, lists, tuples, dicts, the memo) and refuses every other one with a message naming
// the file, the byte offset and the opcode by its pickle name. Nothing is ever executed.
//
// Hostile input is bounded (PickleLimits): the nesting depth, the values made, the memo keys,
// the size of an int, and every length prefix against the bytes left. A value changed after it
// was put into another one (the only way a pickle makes a cycle: a recursive structure) is
// refused, so the tree is always finite and a walk over it always ends.
//
// Ints: LONG1/LONG4 write a little-endian two's complement of any length. A value that fits in
// 64 bits is an Int; a longer one is a BigInt holding those bytes exactly (bigIntDecimal() gives
// its decimal text), up to PickleLimits::maxIntBytes.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rs::flightrecorder {

enum class PickleKind : std::uint8_t {
    None,
    Bool,
    Int,    // fits in int64
    BigInt, // LONG1/LONG4 beyond int64: its bytes, exactly
    Float,
    Str,   // UTF-8 text (checked)
    Bytes, // BINBYTES*, BYTEARRAY8
    List,
    Tuple,
    Dict
};
// "None", "bool", "int", "int", "float", "str", "bytes", "list", "tuple", "dict": Python's names.
const char* pickleKindName(PickleKind k);

struct PickleLimits {
    int maxDepth = 256;                 // containers inside containers (a Flight Recorder dump: 5)
    std::uint64_t maxValues = 4u << 20; // values made (about 32 bytes each); a dump: ~40 an entry
    std::uint32_t maxMemo = 4u << 20;   // memo keys (PUT/MEMOIZE number values from 0)
    std::uint32_t maxIntBytes = 4096;   // payload of one LONG1/LONG4 (32,768 bits)
};

// The opcodes by their pickle names ("GLOBAL", "BINUNICODE"); nullptr for a byte that is none.
const char* pickleOpcodeName(std::uint8_t op);

class PickleDocument;

// A value of a parsed pickle: a view, valid while its document lives. Reading a value as the
// wrong kind gives the kind's empty value (0, "", no items), never undefined behaviour.
class PickleValue {
public:
    PickleValue() = default;
    PickleKind kind() const;
    bool valid() const { return m_doc != nullptr; }
    bool isNone() const { return kind() == PickleKind::None; }
    bool boolean() const;
    std::int64_t integer() const; // Int (a Bool reads as 0 or 1, as in Python)
    double real() const;          // Float
    // Str and Bytes: the bytes; BigInt: its little-endian two's complement bytes.
    std::string_view bytes() const;
    // Int or BigInt as decimal text ("-12", "18446744073709551616").
    std::string bigIntDecimal() const;
    // List and Tuple: items; Dict: pairs.
    std::size_t size() const;
    PickleValue at(std::size_t i) const; // List or Tuple item
    PickleValue key(std::size_t i) const;
    PickleValue value(std::size_t i) const;
    // A Dict's value under a str key; the last one when the key was set twice, as in Python.
    std::optional<PickleValue> find(std::string_view key) const;
    // The byte offset of the opcode that made the value (for messages).
    std::uint64_t offset() const;
    // Containers inside: 0 for a scalar, 1 for a list of scalars.
    int depth() const;

private:
    friend class PickleDocument;
    PickleValue(const PickleDocument* d, std::uint32_t i) : m_doc(d), m_index(i) {}
    const PickleDocument* m_doc = nullptr;
    std::uint32_t m_index = 0;
};

// Why a pickle was not read.
enum class PickleError : std::uint8_t {
    None,
    Refused,   // an opcode that is not plain data (imports, calls, sets, protocol 0 text)
    Truncated, // the bytes end before STOP or inside an opcode's argument
    Malformed, // an opcode on a stack that cannot take it, bad UTF-8, an unknown byte
    Limit      // a PickleLimits bound or a length prefix past the end
};

struct PickleResult {
    std::shared_ptr<const PickleDocument> document; // null when not read
    PickleError error = PickleError::None;
    std::string message;      // "<file>: byte N: opcode GLOBAL (0x63) refused: ..."
    std::uint64_t offset = 0; // where it stopped
    std::string opcode;       // the opcode's pickle name when one is to blame
    bool ok() const { return document != nullptr; }
    PickleValue root() const;
};

class PickleDocument {
public:
    PickleValue root() const { return PickleValue(this, m_root); }
    std::uint64_t values() const { return m_nodes.size(); }
    int protocol() const { return m_protocol; } // PROTO's number; 0 when the pickle has none

private:
    friend class PickleValue;
    friend class PickleParser;
    struct Node {
        PickleKind kind = PickleKind::None;
        bool sealed = false; // inside another value: no longer changed
        std::uint16_t depth = 0;
        std::uint64_t offset = 0;
        std::uint64_t a = 0; // int bits, double bits, bool; bytes: start; container: m_items index
        std::uint64_t n = 0; // bytes: length
    };
    std::vector<Node> m_nodes;
    std::string m_bytes;                             // the bytes of every Str, Bytes and BigInt
    std::vector<std::vector<std::uint32_t>> m_items; // containers' items (Dict: k0, v0, k1...)
    std::uint32_t m_root = 0;
    int m_protocol = 0;
};

// Reads a pickle from memory. `file` names the input in messages.
PickleResult parsePickle(const char* data, std::size_t size, std::string_view file,
                         const PickleLimits& limits = {});

} // namespace rs::flightrecorder
