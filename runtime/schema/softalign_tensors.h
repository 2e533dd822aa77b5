// softalign_tensors.h — the tensor contract: the exact set of tensors a model
// holds, each with its shape, computed from its config (header-only). The one
// definition of models/WEIGHTS_FORMAT.md's tensor table: softalign-convert
// checks a weights file against it, and the runtime binds a model file's
// tensors by it (the runtime decides only which tensor feeds which
// computation). A new tensor is one line here, a line in WEIGHTS_FORMAT.md and
// its use in the runtime.
//
// Names follow PyTorch's state_dict of models/softalign_ref (nn.GRU's or
// nn.LSTM's weight_ih_l0, ..._reverse for the backward direction). n =
// enc_hidden (per direction: annotations have A = enc_directions * n), d = dec_hidden, m = emb_size, a =
// att_hidden, l = maxout_size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "softalign/config.hpp"

namespace softalign::format {

struct TensorSpec {
  std::string name;
  std::vector<uint32_t> shape;  // [rows, cols] for a matrix; [n] or [1, n] for a vector
};

namespace detail {

inline void add(std::vector<TensorSpec>& t, std::string name, std::vector<int> shape) {
  TensorSpec s{std::move(name), {}};
  for (int v : shape) s.shape.push_back(static_cast<uint32_t>(v));
  t.push_back(std::move(s));
}

// nn.GRU's or nn.LSTM's four tensors of one layer and direction (gate blocks
// r, z, n; or i, f, g, o).
inline void add_rnn(std::vector<TensorSpec>& t, const std::string& prefix, const std::string& suffix, int gates,
                    int hidden, int input) {
  add(t, prefix + "weight_ih" + suffix, {gates * hidden, input});
  add(t, prefix + "weight_hh" + suffix, {gates * hidden, hidden});
  add(t, prefix + "bias_ih" + suffix, {gates * hidden});
  add(t, prefix + "bias_hh" + suffix, {gates * hidden});
}

}  // namespace detail

// Gate blocks of the config's cell: 3 (GRU) or 4 (LSTM).
inline int cell_gates(const ModelConfig& c) { return c.cell == Cell::kLstm ? 4 : 3; }

// A: the annotations' width (every encoder layer's output).
inline int annotation_width(const ModelConfig& c) { return c.enc_directions * c.enc_hidden; }

// The decoder's first layer's input width: [E_y y ; c] for bahdanau and
// encdec, [E_y y ; h~] with Luong's input feeding, E_y y without.
inline int decoder_input_width(const ModelConfig& c) {
  if (c.variant == Variant::kLuong) return c.input_feeding ? c.emb_size + c.dec_hidden : c.emb_size;
  return c.emb_size + annotation_width(c);
}

// Every tensor the config's model reads, and no other, in the file's order.
inline std::vector<TensorSpec> tensor_specs(const ModelConfig& c) {
  using detail::add;
  std::vector<TensorSpec> t;
  const int m = c.emb_size, n = c.enc_hidden, d = c.dec_hidden, a = c.att_hidden, l = c.maxout_size;
  const int A = annotation_width(c), gates = cell_gates(c);

  // Encoder: one- or two-way layers.
  add(t, "src_emb.weight", {c.src_vocab, m});
  for (int k = 0; k < c.enc_layers; ++k) {
    const int in = k == 0 ? m : A;
    const std::string layer = "_l" + std::to_string(k);
    detail::add_rnn(t, "encoder.rnn.", layer, gates, n, in);
    if (c.enc_directions == 2) detail::add_rnn(t, "encoder.rnn.", layer + "_reverse", gates, n, in);
  }

  // Bridge: the decoder's first state (WEIGHTS_FORMAT.md "Bridge").
  switch (c.decoder_init) {
    case DecoderInit::kTanhBackward:
    case DecoderInit::kTanhFinal:
      add(t, "bridge.weight", {c.dec_layers * d, c.decoder_init == DecoderInit::kTanhFinal ? A : n});
      add(t, "bridge.bias", {c.dec_layers * d});
      break;
    case DecoderInit::kReluFinal:
      add(t, "bridge.weight", {c.enc_layers * n, c.enc_layers * n});
      add(t, "bridge.bias", {c.enc_layers * n});
      if (c.cell == Cell::kLstm) {
        add(t, "bridge_c.weight", {c.enc_layers * n, c.enc_layers * n});
        add(t, "bridge_c.bias", {c.enc_layers * n});
      }
      break;
    case DecoderInit::kFinal:
    case DecoderInit::kLastForward:
    case DecoderInit::kZero:
      break;
  }

  // Decoder stack.
  add(t, "tgt_emb.weight", {c.tgt_vocab, m});
  for (int k = 0; k < c.dec_layers; ++k)
    detail::add_rnn(t, "decoder.rnn.", "_l" + std::to_string(k), gates, d, k == 0 ? decoder_input_width(c) : d);

  if (c.variant != Variant::kLuong) {
    if (c.variant == Variant::kBahdanau) {
      add(t, "attention.W_a.weight", {a, d});
      add(t, "attention.U_a.weight", {a, A});
      add(t, "attention.U_a.bias", {a});
      add(t, "attention.v_a.weight", {1, a});
    }
    // The maxout output.
    add(t, "output.U_o.weight", {2 * l, d});
    add(t, "output.U_o.bias", {2 * l});
    add(t, "output.V_o.weight", {2 * l, m});
    add(t, "output.C_o.weight", {2 * l, A});
    add(t, "generator.weight", {c.tgt_vocab, l});
  } else {
    if (c.score == Score::kGeneral) add(t, "attention.W_a.weight", {d, A});
    if (c.score == Score::kConcat) {
      add(t, "attention.W_q.weight", {a, d});
      if (c.query_bias) add(t, "attention.W_q.bias", {a});
      add(t, "attention.W_k.weight", {a, A});
      add(t, "attention.v_a.weight", {1, a});
    }
    if (c.score == Score::kLocation) add(t, "attention.W_loc.weight", {c.max_src_len, d});
    if (c.scope == Scope::kLocalP) {
      add(t, "attention.W_p.weight", {a, d});
      add(t, "attention.v_p.weight", {1, a});
    }
    add(t, "decoder.W_c.weight", {d, A + d});  // h~ = tanh(W_c [c ; h] (+ b_c))
    if (c.combine_bias) add(t, "decoder.W_c.bias", {d});
    add(t, "generator.weight", {c.tgt_vocab, d});
  }
  add(t, "generator.bias", {c.tgt_vocab});
  return t;
}

}  // namespace softalign::format
