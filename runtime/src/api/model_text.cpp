// Model's text calls (encode_source, encode_target, decode_target): the
// facade over the tokenizer (text/tokenize.hpp) and the model's processors.
#include <sentencepiece_processor.h>

#include "core/guard.hpp"
#include "core/utf8.hpp"
#include "model/model_impl.hpp"
#include "softalign/model.hpp"
#include "text/tokenize.hpp"

namespace softalign {

namespace {

// The pieces' ids into *ids and, when asked, their strings into *pieces.
void take_pieces(std::vector<internal::SourcePiece>& source, std::vector<int32_t>* ids,
                 std::vector<std::string>* pieces) {
  ids->clear();
  if (pieces != nullptr) pieces->clear();
  for (internal::SourcePiece& p : source) {
    ids->push_back(p.id);
    if (pieces != nullptr) pieces->push_back(std::move(p.piece));
  }
}

}  // namespace

Status Model::encode_source(std::string_view text, std::vector<int32_t>* ids, std::vector<std::string>* pieces) const {
  return internal::guarded([&]() -> Status {
    if (ids == nullptr) return Status(StatusCode::kInvalidArgument, "ids is null");
    if (internal::find_invalid_utf8(text) != std::string_view::npos)
      return Status(StatusCode::kInvalidUtf8, "the text is not valid UTF-8");
    std::vector<internal::SourcePiece> source;
    const Status st = internal::tokenize_source(*impl_->src_spm, text, impl_->config.pretokenized, &source);
    if (!st.ok()) return st;
    take_pieces(source, ids, pieces);
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
    if (impl_->config.pretokenized) {  // the target's tokens (a text prefix)
      std::vector<internal::SourcePiece> tokens;
      st = internal::tokenize_source(*sp, text, true, &tokens);
      if (st.ok()) take_pieces(tokens, ids, pieces);
      return st;
    }
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
    if (pieces != nullptr) {
      pieces->clear();
      for (std::size_t i = 0; i < n; ++i)
        pieces->push_back(ids[i] >= 0 && ids[i] < size ? sp->IdToPiece(ids[i]) : std::string("<unk>"));
    }
    return internal::detokenize(*sp, impl_->config.pretokenized, ids, n, text);
  });
}

}  // namespace softalign
