// The inside of a Translator: the prepared limits, the kernels, the linear
// layers and every working buffer, laid out once in the arena.
#pragma once

#include <memory>
#include <vector>

#include "arena.hpp"
#include "kernels/kernels.hpp"
#include "linear.hpp"
#include "model_impl.hpp"
#include "shortlist.hpp"
#include "softalign/model.hpp"
#include "softalign/options.hpp"
#include "softalign/result.hpp"
#include "softalign/translator.hpp"

struct pthreadpool;

namespace softalign::internal {

// The search parameters of one call, resolved and checked.
struct Search {
  int beam = 1;
  int nbest = 1;
  float alpha = 0.0f;
  float beta = 0.0f;
  float max_len_a = 0.0f;
  float max_len_b = 0.0f;
  bool shortlist = false;  // output layer over the model's shortlist (it has one)
};

struct Finished {
  int step = 0;   // step of its last token
  int index = 0;  // its index in that step's kept list
  float log_prob = 0.0f;
  double score = 0.0;
};

class TranslatorImpl {
 public:
  ~TranslatorImpl();
  Status prepare(std::shared_ptr<const Model> model, const TranslatorOptions& options);
  Status resolve(const SearchOptions& o, Search* out) const;
  Status check_source(const int32_t* src, std::size_t n) const;
  Status translate_ids(const int32_t* src, std::size_t n, const Search& search, NBestView* out);
  Status force_decode(const int32_t* src, std::size_t n, const int32_t* tgt, std::size_t t, float* logits,
                      float* attention);
  int max_target_for(int src_len, const Search& s) const;

  std::shared_ptr<const Model> model;
  const ModelImpl* m = nullptr;
  const ModelConfig* c = nullptr;
  TranslatorOptions options;  // defaults filled in
  const kernels::KernelTable* k = nullptr;
  pthreadpool* pool = nullptr;
  int S = 0;  // max source tokens
  int K = 0;  // max beam
  int T = 0;  // max target tokens (EOS included) for a source of S tokens
  Arena arena;
  // threads > 1: the other translators of translate_batch (one thread each,
  // the same model and options), made at prepare.
  std::vector<std::unique_ptr<Translator>> workers;

 private:
  void layout(Arena& a);
  void encode(const int32_t* src, int s);
  void init_state(float* state);
  // One decoder step for `count` hypotheses: tokens[i], states state_in[i]
  // → state_out[i], attention rows att[i*S_cur...], log-probs or logits rows.
  void step(int count, const int32_t* tokens, int t, int s, float* logits);
  void attend_bahdanau(const float* q, int s, float* att, float* ctx);
  void attend_luong(const float* h, int t, int s, float* att, float* ctx);
  void gru_stack(const float* x0, int count);
  void rows_product(const kernels::Matrix& w, const float* x, int count, const float* bias, float* y);

  // Linear layers over many rows.
  std::vector<std::unique_ptr<Linear>> enc_proj_fwd_, enc_proj_bwd_;  // per encoder layer
  Linear keys_;       // bahdanau U_a (+b), luong general W_a, concat W_k
  Linear generator_;  // output layer over all beams
  Shortlist shortlist_;  // this sentence's target vocabulary, when the shortlist is on

  // Sizes.
  int n_ = 0, d_ = 0, e_ = 0, a_ = 0, l_ = 0, V_ = 0;
  int key_dim_ = 0;     // columns of keys_ (0: none; dot uses the annotations)
  int state_size_ = 0;  // floats per hypothesis: dec_layers * d (+ d for input feeding)
  int gen_in_ = 0;      // generator input size (l or d)
  bool nonfinite_ = false;  // a step met a NaN where it would become an index (damaged weights)

  // Buffers (see layout()).
  float* enc_a_ = nullptr;   // [S, max(e, 2n)] layer input / output (ping-pong)
  float* enc_b_ = nullptr;
  float* gi_f_ = nullptr;    // [S, 3n]
  float* gi_b_ = nullptr;
  float* gh_ = nullptr;      // [3 max(n, d)]
  float* h_ = nullptr;       // [max(n, d)]
  const float* ann_ = nullptr;  // [S, 2n] annotations (points into enc_a_/enc_b_)
  float* keys_buf_ = nullptr;   // [S, key_dim]
  float* fixed_ctx_ = nullptr;  // [2n] encdec context
  int8_t* xq_ = nullptr;        // quantized activations scratch (rows × cols of the widest Linear)
  float* xs_ = nullptr;         // their per-row scales
  float* state_cur_ = nullptr;  // [K, state_size]
  float* state_next_ = nullptr;
  float* x_ = nullptr;          // [e + max(2n, d)] GRU stack input
  float* gi_ = nullptr;         // [3d]
  float* q_ = nullptr;          // [max(a, d)]
  float* scores_ = nullptr;     // [S]
  float* ctx_ = nullptr;        // [2n]
  float* emb_ = nullptr;        // [e]
  // Per-hypothesis rows of the decoder step ([K, ...]).
  float* emb_all_ = nullptr;    // [K, e]
  float* x_all_ = nullptr;      // [K, e + max(2n, d)] GRU stack input
  float* gi_all_ = nullptr;     // [K, 3d]
  float* gh_all_ = nullptr;     // [K, 3d]
  float* hq_ = nullptr;         // [K, d] gathered states
  float* hq2_ = nullptr;        // [K, d]
  float* q_all_ = nullptr;      // [K, a] attention queries
  float* ctx_all_ = nullptr;    // [K, 2n] contexts
  float* u_all_ = nullptr;      // [K, 2l]
  float* u2_all_ = nullptr;     // [K, 2l]
  float* u_ = nullptr;          // [2l] and temporaries
  float* u2_ = nullptr;
  float* cat_ = nullptr;        // [2n + d]
  float* gen_in_buf_ = nullptr; // [K, gen_in]
  float* logits_ = nullptr;     // [K, V]
  float* att_step_ = nullptr;   // [K, S]
  // Search history.
  int32_t* hist_tok_ = nullptr;     // [T, K]
  int32_t* hist_parent_ = nullptr;  // [T, K]
  float* hist_att_ = nullptr;       // [T, K, S]
  int32_t* alive_idx_ = nullptr;    // [K] history index of each alive hypothesis
  float* alive_logp_ = nullptr;     // [K]
  int32_t* alive_tok_ = nullptr;    // [K]
  float* alive_logp_next_ = nullptr;
  int32_t* top_idx_ = nullptr;      // [K]
  float* top_val_ = nullptr;        // [K]
  double* coverage_ = nullptr;      // [S]
  Finished* finished_ = nullptr;    // [K]
  int32_t* out_ids_ = nullptr;      // [K, T]
  float* out_att_ = nullptr;        // [K, T, S]
  HypothesisView* out_views_ = nullptr;  // [K]
};

}  // namespace softalign::internal
