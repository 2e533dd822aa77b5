// softalign — offline translation with attention RNN models (C++17 API).
//
//   std::shared_ptr<const softalign::Model> model;
//   softalign::Status st = softalign::Model::load("en-fr.int8.softalign", &model);
//   std::unique_ptr<softalign::Translator> tr;
//   if (st.ok()) st = softalign::Translator::prepare(model, {}, &tr);
//   softalign::TranslationResult r;
//   if (st.ok()) st = tr->translate("Hello world.", &r);
//   if (st.ok()) std::cout << r.hypotheses[0].text << "\n";
//   else std::cerr << st.to_string() << "\n";
#pragma once

#include "softalign/config.hpp"
#include "softalign/model.hpp"
#include "softalign/options.hpp"
#include "softalign/result.hpp"
#include "softalign/span.hpp"
#include "softalign/status.hpp"
#include "softalign/text.hpp"
#include "softalign/translator.hpp"
#include "softalign/translator_pool.hpp"
#include "softalign/version.hpp"
