// Model's text calls (encode_source, encode_target, decode_target): the
// facade over the tokenizer (text/tokenize.hpp) and the model's processors.
#include <sentencepiece_processor.h>

#include "core/guard.hpp"
#include "core/utf8.hpp"
#include "model/model_impl.hpp"
#include "softalign/model.hpp"
#include "text/tokenize.hpp"

namespace softalign {

Status Model::encode_source(std::string_view text, std::vector<int32_t>* ids, std::vector<std::string>* pieces) const {
  return internal::guarded([&]() -> Status {
    if (ids == nullptr) return Status(StatusCode::kInvalidArgument, "ids is null");
    if (internal::find_invalid_utf8(text) != std::string_view::npos)
      return Status(StatusCode::kInvalidUtf8, "the text is not valid UTF-8");
    std::vector<internal::SourcePiece> source;
    const Status st = internal::tokenize_source(*impl_->src_spm, text, &source);
    if (!st.ok()) return st;
    ids->clear();
    if (pieces != nullptr) pieces->clear();
    for (internal::SourcePiece& p : source) {
      ids->push_back(p.id);
      if (pieces != nullptr) pieces->push_back(std::move(p.piece));
    }
    ids->push_back(impl_->config.eos_id);
    return Status::Ok();
  });
}

Status Model::encode_target(std::string_view text, std::vector<int32_t>* ids, std::vector<std::string>* pieces) const {
  return internal::guarded([&]() -> Status {
    if (ids == nullptr) return Status(StatusCode::kInvalidArgument, "ids is null");
    if (internal::find_invalid_utf8(text) != std::string_view::npos)
      return Status(StatusCode::kInvalidUtf8, "the text is not valid UTF-8");
    const sentencepiece::SentencePieceProcessor* sp = nullptr;
    Status st = impl_->target_encoder(&sp);
    if (!st.ok()) return st;
    std::vector<int> raw;
    const auto enc = sp->Encode(text, &raw);
    if (!enc.ok()) return Status(StatusCode::kInvalidArgument, "SentencePiece: " + enc.ToString());
    ids->assign(raw.begin(), raw.end());
    if (pieces != nullptr) {
      pieces->clear();
      for (int id : raw) pieces->push_back(sp->IdToPiece(id));
    }
    return Status::Ok();
  });
}

Status Model::decode_target(const int32_t* ids, std::size_t n, std::string* text,
                            std::vector<std::string>* pieces) const {
  return internal::guarded([&]() -> Status {
    if (text == nullptr || (ids == nullptr && n > 0)) return Status(StatusCode::kInvalidArgument, "null argument");
    const sentencepiece::SentencePieceProcessor* sp = impl_->tgt();
    const int size = sp->GetPieceSize();
    std::vector<int> raw;
    raw.reserve(n);
    if (pieces != nullptr) pieces->clear();
    for (std::size_t i = 0; i < n; ++i) {
      const int id = ids[i];
      const bool known = id >= 0 && id < size;
      if (pieces != nullptr) pieces->push_back(known ? sp->IdToPiece(id) : std::string("<unk>"));
      if (known) raw.push_back(id);
    }
    text->clear();
    const auto st = sp->Decode(raw, text);
    if (!st.ok()) return Status(StatusCode::kInternal, "SentencePiece: " + st.ToString());
    return Status::Ok();
  });
}

}  // namespace softalign
