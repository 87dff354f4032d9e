// json::Value — a lossless JSON value with JavaScript semantics.
//
// Mirrors what JSON.parse produces in JavaScript, because dsh logs are written
// by JSON.stringify and must round-trip byte-exactly:
//  - numbers are IEEE doubles (integers beyond 2^53 lose precision, as in JS);
//  - strings are WTF-8: UTF-8 that may also encode lone UTF-16 surrogates
//    (U+D800..U+DFFF as 3-byte sequences), so "\ud800" survives a round trip;
//  - objects keep insertion order, except that array-index-like keys
//    ("0".."4294967294") come first in ascending numeric order, as JS property
//    order requires; a duplicate key keeps its first position, last value wins.
//
// Arrays and objects are shared on copy and copied on write: copying a value
// costs one reference count whatever its size, and the first mutable access
// (as_array(), as_object(), Find(), Set() on a non-const value) of a shared
// container gives this value its own. A mutable reference obtained before
// the value is copied must not be used after: take it again.
//
// A container may keep the text it was parsed from (kept_text()), which the
// writer then copies; an array may even be known by that text alone until
// its items are first read (UnbuiltArray()).
//
// Comparison, serialization and destruction never recurse deeper than a
// small bound: arbitrarily deep values never overflow the stack.
#ifndef RETRACE_ENGINE_JSON_VALUE_H_
#define RETRACE_ENGINE_JSON_VALUE_H_

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace retrace::json {

// The text of an array or object as the writer writes it, kept from the text
// it was parsed from (a slice of a buffer that nested kept containers share).
struct KeptText {
  std::shared_ptr<const std::string> buffer;
  std::string_view text;
};

class Value;

namespace internal {

// Builds `out` from `kept->text` once, whichever thread reads first, and
// then sets `built` (release). Defined in value.cc, where the parser is.
void BuildKept(std::atomic<bool>& built, const KeptText* kept, std::vector<Value>& out);
void BuildKept(std::atomic<bool>& built, const KeptText* kept, std::vector<std::pair<std::string, Value>>& out);

// Recycled blocks of one size, per thread. A block freed on another thread
// joins that thread's list; each list keeps at most kMaxFree blocks and is
// freed when its thread ends (after which the thread uses the heap directly,
// for values destroyed later, such as statics).
template <size_t kSize>
class BoxPool {
 public:
  static void* Take(size_t size) {
    if (ended) return ::operator new(size);
    List& l = list();
    if (!l.head) return ::operator new(size);
    Node* n = l.head;
    l.head = n->next;
    --l.count;
    return n;
  }
  static void Give(void* p) {
    if (ended) return ::operator delete(p);
    List& l = list();
    if (l.count >= kMaxFree) return ::operator delete(p);
    l.head = new (p) Node{l.head};
    ++l.count;
  }

 private:
  static_assert(kSize >= sizeof(void*));
  static constexpr size_t kMaxFree = 1 << 16;
  struct Node {
    Node* next;
  };
  struct List {
    Node* head = nullptr;
    size_t count = 0;
    ~List() {
      ended = true;
      while (head) ::operator delete(std::exchange(head, head->next));
    }
  };
  static List& list() {
    thread_local List l;
    return l;
  }
  static inline thread_local bool ended = false;  // trivially destructible: readable until the thread is gone
};

// A reference-counted box for a container, copied on write. Null stands for
// an empty container, so moved-from and default containers allocate nothing.
template <class T>
class Shared {
 public:
  Shared() = default;
  explicit Shared(T data) : box_(data.empty() ? nullptr : new Box{{1}, {true}, std::move(data), nullptr}) {}
  // A container known by its kept text alone, built from it on first read.
  static Shared Unbuilt(KeptText kept) {
    Shared s;
    s.box_ = new Box{{1}, {false}, T(), std::make_unique<KeptText>(std::move(kept))};
    return s;
  }
  Shared(const Shared& other) : box_(other.box_) {
    if (box_) box_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  Shared(Shared&& other) noexcept : box_(other.box_) { other.box_ = nullptr; }
  Shared& operator=(Shared other) noexcept {
    std::swap(box_, other.box_);
    return *this;
  }
  ~Shared() { Release(); }

  const T& get() const {
    if (!box_) return Empty();
    if (!box_->built.load(std::memory_order_acquire)) BuildKept(box_->built, box_->kept.get(), box_->data);
    return box_->data;
  }
  // This value's own container, copied first if it is shared. A kept text
  // is dropped: the container may change.
  T& mut() {
    if (!box_) {
      box_ = new Box{{1}, {true}, T(), nullptr};
      return box_->data;
    }
    if (!box_->built.load(std::memory_order_acquire)) BuildKept(box_->built, box_->kept.get(), box_->data);
    if (box_->refs.load(std::memory_order_acquire) != 1) {
      Box* own = new Box{{1}, {true}, box_->data, nullptr};
      Release();
      box_ = own;
    } else if (box_->kept) {
      box_->kept.reset();
    }
    return box_->data;
  }
  const KeptText* kept() const { return box_ ? box_->kept.get() : nullptr; }
  void Keep(KeptText kept) {
    if (box_) box_->kept = std::make_unique<KeptText>(std::move(kept));
  }
  // False when this value alone holds a non-empty container (so it may take
  // it apart). An unbuilt container has no children to take apart.
  bool empty_or_shared() const { return !box_ || box_->refs.load(std::memory_order_acquire) != 1 || box_->data.empty(); }

 private:
  struct Box {
    std::atomic<uint32_t> refs;
    std::atomic<bool> built;  // false: `data` is still to be built from `kept` (Unbuilt()); beside refs, in its padding
    T data;
    std::unique_ptr<KeptText> kept;  // set by the parse that built it, before another thread sees it
    // Boxes come and go by the hundred thousand when a log is read: they
    // are recycled through a per-thread free list rather than malloc.
    static void* operator new(size_t size) { return BoxPool<sizeof(Box)>::Take(size); }
    static void operator delete(void* p) { BoxPool<sizeof(Box)>::Give(p); }
  };
  static const T& Empty() {
    static const T empty;
    return empty;
  }
  void Release() {
    if (box_ && box_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete box_;
    box_ = nullptr;
  }
  Box* box_ = nullptr;
};

}  // namespace internal

class Value {
 public:
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };
  using Array = std::vector<Value>;
  using Member = std::pair<std::string, Value>;
  using Object = std::vector<Member>;

  Value() = default;
  Value(std::nullptr_t) {}                                // NOLINT: implicit by design
  Value(bool b) : v_(b) {}                                // NOLINT
  Value(double d) : v_(d) {}                              // NOLINT
  Value(int i) : v_(static_cast<double>(i)) {}            // NOLINT
  Value(int64_t i) : v_(static_cast<double>(i)) {}        // NOLINT
  Value(std::string s) : v_(std::move(s)) {}              // NOLINT
  Value(std::string_view s) : v_(std::string(s)) {}       // NOLINT
  Value(const char* s) : v_(std::string(s)) {}            // NOLINT
  Value(Array a);                                          // NOLINT
  static Value MakeObject(std::initializer_list<Member> members = {});
  // The object Set() would build from `members` in order (a later duplicate
  // replaces an earlier one; index keys go first). Members that need neither
  // are moved in as they are: what a parser of canonical JSON gives.
  static Value MakeObject(Object members);

  // Copying shares containers; destruction is bounded in depth.
  Value(const Value& other) = default;
  Value& operator=(const Value& other);
  Value(Value&&) noexcept = default;
  Value& operator=(Value&& other) noexcept;
  ~Value() {
    if (OwnsContainer()) DestroyContainer();
  }

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool is_null() const { return kind() == Kind::kNull; }
  bool is_bool() const { return kind() == Kind::kBool; }
  bool is_number() const { return kind() == Kind::kNumber; }
  bool is_string() const { return kind() == Kind::kString; }
  bool is_array() const { return kind() == Kind::kArray; }
  bool is_object() const { return kind() == Kind::kObject; }

  // REQUIRES: the matching kind.
  bool as_bool() const { return std::get<bool>(v_); }
  double as_number() const { return std::get<double>(v_); }
  const std::string& as_string() const { return std::get<std::string>(v_); }
  // The non-const forms give this value its own container (see above).
  const Array& as_array() const { return std::get<SharedArray>(v_).get(); }
  Array& as_array() { return std::get<SharedArray>(v_).mut(); }
  const Object& as_object() const { return std::get<SharedObject>(v_).get(); }
  Object& as_object() { return std::get<SharedObject>(v_).mut(); }

  // Member lookup; nullptr when this is not an object or the key is absent.
  // The non-const form gives this value its own object when the key is found.
  const Value* Find(std::string_view key) const;
  Value* Find(std::string_view key);

  // Sets a member with JS semantics (see the file comment). REQUIRES: object.
  void Set(std::string key, Value value);

  // True for a number that is a safe integer (|x| <= 2^53-1, integral).
  bool is_safe_integer() const;

  // An array's or object's text exactly as json::AppendSerialized writes it,
  // when the parse that built it kept it from its input (so that writing the
  // container again is a copy); empty otherwise, and after any mutable access.
  std::string_view kept_text() const;
  // REQUIRES: an array or object, and `kept.text` is exactly what
  // json::AppendSerialized writes for it. An empty container keeps nothing.
  void KeepText(KeptText kept);
  // The non-empty array `kept.text` holds, exactly as json::AppendSerialized
  // writes it: its items are built from that text when first read, so a
  // reader that only writes the array again never builds them.
  static Value UnbuiltArray(KeptText kept);

 private:
  using SharedArray = internal::Shared<Array>;
  using SharedObject = internal::Shared<Object>;
  using Storage = std::variant<std::monostate, bool, double, std::string, SharedArray, SharedObject>;
  // True for a container that nobody else holds (destroying it destroys its children).
  bool OwnsContainer() const {
    if (is_array()) return !std::get<SharedArray>(v_).empty_or_shared();
    if (is_object()) return !std::get<SharedObject>(v_).empty_or_shared();
    return false;
  }
  // Destroys the children of an owned container, iteratively past a depth.
  void DestroyContainer();
  // Moves the children of an owned container onto `work` (see TearDown()).
  static void StealChildren(Value& v, std::vector<Value>& work);
  // Destroys an owned tree iteratively, whatever its depth.
  static void TearDown(Value& root);
  Storage v_;
};

// True when `key` is a canonical array index ("0".."4294967294").
bool IsArrayIndexKey(std::string_view key);

// Deep equality: numbers compare as doubles (so -0 == 0), objects member by
// member in order. Iterative.
bool operator==(const Value& a, const Value& b);

}  // namespace retrace::json

#endif  // RETRACE_ENGINE_JSON_VALUE_H_
