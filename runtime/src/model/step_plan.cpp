#include "model/step_plan.hpp"

namespace softalign::internal {

namespace {

PlanShapes plan_shapes(const ModelConfig& c, WeightType weight_type) {
  const bool luong = c.variant == Variant::kLuong;
  PlanShapes s;
  s.emb = c.emb_size;
  s.enc_hidden = c.enc_hidden;
  s.directions = c.enc_directions;
  s.ann = c.enc_directions * c.enc_hidden;
  s.cell = c.cell;
  s.gates = c.cell == Cell::kLstm ? 4 : 3;
  s.skip_source_eos = !c.source_eos;
  s.dec_hidden = c.dec_hidden;
  s.att_hidden = c.att_hidden;
  s.maxout = c.maxout_size;
  s.vocab = c.tgt_vocab;
  s.enc_layers = c.enc_layers;
  s.dec_layers = c.dec_layers;
  // The keys computed once per sentence: bahdanau U_a h + b, general W_a h,
  // concat W_k h; dot and location read the annotations or nothing.
  if (c.variant == Variant::kBahdanau || (luong && c.score == Score::kConcat)) s.key_dim = c.att_hidden;
  if (luong && c.score == Score::kGeneral) s.key_dim = c.dec_hidden;
  // Each layer's hidden state, then each layer's cell (LSTM), then h~ with
  // Luong's input feeding.
  const bool feeds = luong && c.input_feeding;
  const int states = c.dec_layers * c.dec_hidden;
  s.cell_offset = c.cell == Cell::kLstm ? states : 0;
  s.fed_offset = c.cell == Cell::kLstm ? 2 * states : states;
  s.state_size = s.fed_offset + (feeds ? c.dec_hidden : 0);
  s.fed = luong ? (feeds ? c.dec_hidden : 0) : s.ann;
  s.output_in = luong ? c.dec_hidden : c.maxout_size;
  s.eos_id = c.eos_id;
  s.weight_type = weight_type;
  return s;
}

std::vector<EncoderOperation> plan_encoder(const ModelConfig& c, const Weights& w, int key_dim) {
  std::vector<EncoderOperation> ops;
  EncoderOperation embed{EncoderOp::kEmbed};
  embed.matrix = &w.src_emb;
  ops.push_back(embed);
  for (int layer = 0; layer < c.enc_layers; ++layer) {
    EncoderOperation op{EncoderOp::kLayer};
    op.layer = layer;
    op.forward = &w.enc_fwd[layer];
    op.backward = c.enc_directions == 2 ? &w.enc_bwd[layer] : nullptr;
    op.reverse = c.reverse_source;
    ops.push_back(op);
  }
  if (key_dim > 0) {
    EncoderOperation keys{EncoderOp::kKeys};
    const bool bahdanau = c.variant == Variant::kBahdanau;
    keys.matrix = bahdanau ? &w.att_U_a : c.score == Score::kGeneral ? &w.att_W_a : &w.att_W_k;
    keys.bias = bahdanau ? w.att_U_a_b : nullptr;
    ops.push_back(keys);
  }
  const bool encdec = c.variant == Variant::kEncDec;
  if (encdec) ops.push_back({EncoderOp::kFixedContext});
  EncoderOperation bridge{EncoderOp::kBridge};
  bridge.init = c.decoder_init;
  bridge.matrix = &w.bridge_w;
  bridge.bias = w.bridge_b;
  bridge.cell_matrix = &w.bridge_c_w;
  bridge.cell_bias = w.bridge_c_b;
  ops.push_back(bridge);
  return ops;
}

// Luong's attention: its scores and window from the config's score and scope.
StepOperation plan_luong_attention(const ModelConfig& c, const Weights& w) {
  StepOperation op{StepOp::kAttendWithState};
  switch (c.score) {
    case Score::kDot: op.scores = Scores::kDot; break;
    case Score::kGeneral: op.scores = Scores::kDotKeys; break;
    case Score::kConcat:
      op.scores = Scores::kAdditive;
      op.matrix = &w.att_W_q;
      op.bias = w.att_W_q_b;
      op.vector = w.att_v_a;
      break;
    case Score::kLocation:
      op.scores = Scores::kPosition;
      op.matrix = &w.att_W_loc;
      break;
    case Score::kNone: break;
  }
  op.window = c.scope == Scope::kLocalM ? Window::kAtStep : c.scope == Scope::kLocalP ? Window::kPredicted : Window::kAll;
  op.window_d = c.window_d;
  if (op.window == Window::kPredicted) {
    op.position = &w.att_W_p;
    op.position_vector = w.att_v_p;
  }
  return op;
}

std::vector<StepOperation> plan_step(const ModelConfig& c, const Weights& w) {
  const bool luong = c.variant == Variant::kLuong, encdec = c.variant == Variant::kEncDec;
  std::vector<StepOperation> ops;
  StepOperation input{StepOp::kInput};
  input.matrix = &w.tgt_emb;
  input.fed = encdec ? FedInput::kFixedContext
              : luong ? (c.input_feeding ? FedInput::kAttentional : FedInput::kNone)
                      : FedInput::kAttention;
  input.zero_attention = encdec;
  ops.push_back(input);
  // Bahdanau attends with the previous state, before the GRU.
  if (c.variant == Variant::kBahdanau) {
    StepOperation query{StepOp::kQuery};
    query.matrix = &w.att_W_a;
    ops.push_back(query);
    StepOperation attend{StepOp::kAttendAdditive};
    attend.vector = w.att_v_a;
    ops.push_back(attend);
  }
  for (int layer = 0; layer < c.dec_layers; ++layer) {
    StepOperation rnn{StepOp::kRnn};
    rnn.layer = layer;
    rnn.rnn = &w.dec[layer];
    rnn.rnn_input = input.fed == FedInput::kNone ? RnnInput::kEmbedding : RnnInput::kRow;
    ops.push_back(rnn);
  }
  // Luong attends with the new state, after it.
  if (luong) {
    ops.push_back(plan_luong_attention(c, w));
    StepOperation combine{StepOp::kCombine};
    combine.matrix = &w.dec_W_c;
    combine.bias = w.dec_W_c_b;
    combine.tanh = c.combine_tanh;
    combine.feed_back = c.input_feeding;
    ops.push_back(combine);
  } else {
    StepOperation maxout{StepOp::kMaxout};
    maxout.from_state = &w.out_U_o;
    maxout.bias = w.out_U_o_b;
    maxout.from_embedding = &w.out_V_o;
    maxout.from_context = &w.out_C_o;
    ops.push_back(maxout);
  }
  StepOperation output{StepOp::kOutput};
  output.matrix = &w.gen_w;
  output.bias = w.gen_b;
  ops.push_back(output);
  return ops;
}

}  // namespace

Plan plan_model(const ModelConfig& c, const Weights& w, WeightType weight_type) {
  Plan plan;
  plan.shapes = plan_shapes(c, weight_type);
  plan.encoder = plan_encoder(c, w, plan.shapes.key_dim);
  plan.step = plan_step(c, w);
  return plan;
}

}  // namespace softalign::internal
