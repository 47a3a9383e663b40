//! The CPU reference: one op a file, each a forward/backward pair in the style of llm.c
//! (`op_forward(out.., inp.., params..)`, `op_backward(dinp.., dparams.., dout, cache..)`).
//! Parameter gradients accumulate (`+=`); activation gradients are returned fresh.
//! Shapes: N rows (= B*T tokens), H hidden, I intermediate, V vocab, NH heads, HD head dim.

pub mod activation;
pub mod attention;
pub mod cross_entropy;
pub mod dropout;
pub mod embedding;
pub mod gemm;
pub mod layernorm;
pub mod linear;
pub mod mse;
pub mod position;
pub mod real;
pub mod softmax;
#[cfg(test)]
pub mod testutil;
pub mod vocab_loss;
pub mod vocab_loss_gemm;
