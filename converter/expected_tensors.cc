#include "expected_tensors.h"

namespace softalign::convert {

namespace {

void add_gru(std::map<std::string, Shape>& t, const std::string& prefix, const std::string& suffix,
             uint64_t hidden, uint64_t input) {
  t[prefix + "weight_ih" + suffix] = {3 * hidden, input};
  t[prefix + "weight_hh" + suffix] = {3 * hidden, hidden};
  t[prefix + "bias_ih" + suffix] = {3 * hidden};
  t[prefix + "bias_hh" + suffix] = {3 * hidden};
}

}  // namespace

std::string shape_to_string(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::map<std::string, Shape> expected_tensors(const ModelConfig& c) {
  std::map<std::string, Shape> t;
  const uint64_t m = c.emb_size, n = c.enc_hidden, d = c.dec_hidden, a = c.att_hidden, l = c.maxout_size;
  const uint64_t Ld = c.dec_layers, Vs = c.src_vocab, Vt = c.tgt_vocab, Smax = c.max_src_len;

  // Encoder: bidirectional GRU layers.
  t["src_emb.weight"] = {Vs, m};
  for (int k = 0; k < c.enc_layers; ++k) {
    const uint64_t in = k == 0 ? m : 2 * n;
    const std::string layer = "_l" + std::to_string(k);
    add_gru(t, "encoder.rnn.", layer, n, in);
    add_gru(t, "encoder.rnn.", layer + "_reverse", n, in);
  }

  // Bridge: initial state of every decoder layer.
  t["bridge.weight"] = {Ld * d, c.variant == Variant::kEncDec ? 2 * n : n};
  t["bridge.bias"] = {Ld * d};

  // Decoder GRU stack.
  t["tgt_emb.weight"] = {Vt, m};
  uint64_t in0 = m + 2 * n;  // bahdanau, encdec: [E_y y ; c]
  if (c.variant == Variant::kLuong) in0 = c.input_feeding ? m + d : m;
  for (int k = 0; k < c.dec_layers; ++k)
    add_gru(t, "decoder.rnn.", "_l" + std::to_string(k), d, k == 0 ? in0 : d);

  if (c.variant == Variant::kBahdanau) {
    t["attention.W_a.weight"] = {a, d};
    t["attention.U_a.weight"] = {a, 2 * n};
    t["attention.U_a.bias"] = {a};
    t["attention.v_a.weight"] = {1, a};
  }
  if (c.variant != Variant::kLuong) {  // bahdanau, encdec: the maxout output
    t["output.U_o.weight"] = {2 * l, d};
    t["output.U_o.bias"] = {2 * l};
    t["output.V_o.weight"] = {2 * l, m};
    t["output.C_o.weight"] = {2 * l, 2 * n};
    t["generator.weight"] = {Vt, l};
    t["generator.bias"] = {Vt};
  }
  if (c.variant == Variant::kLuong) {
    if (c.score == Score::kGeneral) t["attention.W_a.weight"] = {d, 2 * n};
    if (c.score == Score::kConcat) {
      t["attention.W_q.weight"] = {a, d};
      t["attention.W_k.weight"] = {a, 2 * n};
      t["attention.v_a.weight"] = {1, a};
    }
    if (c.score == Score::kLocation) t["attention.W_loc.weight"] = {Smax, d};
    if (c.scope == Scope::kLocalP) {
      t["attention.W_p.weight"] = {a, d};
      t["attention.v_p.weight"] = {1, a};
    }
    t["decoder.W_c.weight"] = {d, 2 * n + d};
    t["generator.weight"] = {Vt, d};
    t["generator.bias"] = {Vt};
  }
  return t;
}

}  // namespace softalign::convert
