// The card document (cards.h) and its one serializer of a card entry:
//
//   {"sessionId":…,"calls":[{"callId","name","args","pending","result",
//                            "isError","display":{"pending","result"}},…]}
//
// CardDocument writes the document as JSON text while the calls are
// presented, in blocks (one when Reserve() guessed right, else one more per
// few megabytes, so the text never moves as it grows), each entry in its
// place in card order. A writer to a file drains it every few megabytes, so
// memory holds a block rather than the document. CardEntryValue gives the
// same entry as a value: both walk one list of fields (WriteEntry).
#ifndef RETRACE_ENGINE_REPLAY_CARD_DOCUMENT_H_
#define RETRACE_ENGINE_REPLAY_CARD_DOCUMENT_H_

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/value.h>
#include <retrace/engine/replay/card_fold.h>

namespace retrace::replay {

// A call's entry of the document, as a value (what parsing its text gives).
json::Value CardEntryValue(const PresentedCall& call);
// The document of `calls`, as a value.
json::Value CardDocumentValue(const std::string& session_id, const std::vector<PresentedCall>& calls);

class CardDocument {
 public:
  // The head is written with the first entry when the session id is known
  // by then (not ""), so that Finish() need not move the whole text to put
  // it in front; a later set_session_id rewrites it.
  explicit CardDocument(std::string session_id) : session_id_(std::move(session_id)) {}

  // Before Drain() first writes.
  void set_session_id(std::string id);
  // The document's expected size: the text then grows in place instead of
  // by copies. A generous guess costs only address space (pages never
  // written are never touched).
  void Reserve(size_t bytes);

  // Writes the entry of the call at `index` of card order: at once when
  // every earlier entry is written, else held as text until they are.
  void Add(size_t index, const PresentedCall& call);
  // Entries written (or held) so far.
  size_t entries() const { return next_ + held_.size(); }

  // Hands the text written so far to `write` (the head at the first call,
  // then the entries in order since) and keeps the memory for what follows.
  Status Drain(const std::function<Status(std::string_view)>& write);
  // Bytes written and not yet drained.
  size_t size() const;
  // Appends `later`, the document of the calls that follow this one's: its
  // entries come after these, its head is dropped. REQUIRES: no entry of
  // either is held (every index below entries() added).
  void Append(CardDocument&& later);
  // The document's rest as one text, ending with "]}" (after Drain(), only
  // what was not drained). Takes the text out of the document.
  std::string Finish();

 private:
  // `{"sessionId":…,"calls":[`
  std::string Head() const;
  // The block to write the next entry (of about `bytes`) to, comma included.
  std::string& BlockFor(size_t bytes);

  static constexpr size_t kBlock = size_t{4} << 20;
  std::string session_id_;
  std::vector<std::string> blocks_ = std::vector<std::string>(1);
  size_t next_ = 0;                      // entries written into blocks_ (all below this index)
  std::map<size_t, std::string> held_;   // index → entry text, waiting for an earlier entry
  bool head_drained_ = false;            // Drain() wrote the head
  size_t head_in_text_ = 0;              // the head's bytes at the front of blocks_[0] (0: not there)
};

}  // namespace retrace::replay

#endif  // RETRACE_ENGINE_REPLAY_CARD_DOCUMENT_H_
