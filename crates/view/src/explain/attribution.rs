//! The attribution methods the page and the CLI offer (`bertscope::infer::attribute` computes them).

use crate::error::{BertError, Result};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    Grad,
    GradXInput,
    Ig,
}

impl Method {
    pub const ALL: [Method; 3] = [Method::Grad, Method::GradXInput, Method::Ig];

    pub fn key(self) -> &'static str {
        match self {
            Method::Grad => "grad",
            Method::GradXInput => "grad-x-input",
            Method::Ig => "ig",
        }
    }

    pub fn parse(s: &str) -> Result<Self> {
        Method::ALL
            .into_iter()
            .find(|m| m.key() == s)
            .ok_or_else(|| BertError::Input(format!("unknown method `{s}`: grad, grad-x-input or ig")))
    }
}
