//! Named tensors in safetensors files: reading any float dtype as f32 (f32, f16, bf16, f64) and
//! integer tensors as i64; writing f32 / i64. Every error names the tensor.

use crate::error::{BertError, Result};
use ndarray::{ArrayD, IxDyn};
use safetensors::tensor::{Dtype, SafeTensors, TensorView, View};
use std::borrow::Cow;
use std::collections::HashMap;

/// A tensor to write.
#[derive(Clone, Debug)]
pub enum Tensor {
    F32(ArrayD<f32>),
    I64(ArrayD<i64>),
}

impl View for &Tensor {
    fn dtype(&self) -> Dtype {
        match self {
            Tensor::F32(_) => Dtype::F32,
            Tensor::I64(_) => Dtype::I64,
        }
    }
    fn shape(&self) -> &[usize] {
        match self {
            Tensor::F32(a) => a.shape(),
            Tensor::I64(a) => a.shape(),
        }
    }
    fn data(&self) -> Cow<'_, [u8]> {
        let bytes: Vec<u8> = match self {
            Tensor::F32(a) => a.iter().flat_map(|v| v.to_le_bytes()).collect(),
            Tensor::I64(a) => a.iter().flat_map(|v| v.to_le_bytes()).collect(),
        };
        Cow::Owned(bytes)
    }
    fn data_len(&self) -> usize {
        match self {
            Tensor::F32(a) => a.len() * 4,
            Tensor::I64(a) => a.len() * 8,
        }
    }
}

/// Serialises `tensors` (names must be unique) with optional string metadata.
pub fn write_tensors(tensors: &[(String, Tensor)], metadata: Option<HashMap<String, String>>) -> Result<Vec<u8>> {
    safetensors::serialize(tensors.iter().map(|(n, t)| (n.as_str(), t)), metadata)
        .map_err(|e| BertError::Checkpoint(format!("cannot write safetensors: {e}")))
}

/// Parses the header and checks every offset against the buffer (no data is copied).
pub fn parse(bytes: &[u8]) -> Result<SafeTensors<'_>> {
    SafeTensors::deserialize(bytes).map_err(|e| {
        BertError::Checkpoint(format!("not a valid safetensors file ({} bytes): {e}", bytes.len()))
    })
}

/// Any float tensor as f32; NaN or infinite values are an error naming the tensor.
pub fn read_f32(name: &str, view: &TensorView<'_>) -> Result<ArrayD<f32>> {
    let d = view.data();
    let values: Vec<f32> = match view.dtype() {
        Dtype::F32 => d.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect(),
        Dtype::F16 => d.chunks_exact(2).map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32()).collect(),
        Dtype::BF16 => d.chunks_exact(2).map(|c| half::bf16::from_le_bytes([c[0], c[1]]).to_f32()).collect(),
        Dtype::F64 => d
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")) as f32)
            .collect(),
        other => return Err(BertError::tensor(name, format!("dtype {other:?} is not a float type"))),
    };
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(BertError::tensor(name, format!("value {} at flat index {i} is not finite", values[i])));
    }
    ArrayD::from_shape_vec(IxDyn(view.shape()), values)
        .map_err(|e| BertError::tensor(name, format!("shape {:?} does not match its data: {e}", view.shape())))
}

/// Any integer tensor as i64.
pub fn read_i64(name: &str, view: &TensorView<'_>) -> Result<ArrayD<i64>> {
    let d = view.data();
    let values: Vec<i64> = match view.dtype() {
        Dtype::I64 => d.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes"))).collect(),
        Dtype::I32 => d.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")) as i64).collect(),
        Dtype::U8 => d.iter().map(|&v| v as i64).collect(),
        other => return Err(BertError::tensor(name, format!("dtype {other:?} is not an integer type"))),
    };
    ArrayD::from_shape_vec(IxDyn(view.shape()), values)
        .map_err(|e| BertError::tensor(name, format!("shape {:?} does not match its data: {e}", view.shape())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_half_precision() {
        let a = ArrayD::from_shape_vec(IxDyn(&[2, 3]), vec![1.0f32, -2.5, 3.25, 0.0, 1e-3, 7.0]).unwrap();
        let ids = ArrayD::from_shape_vec(IxDyn(&[2]), vec![5i64, -100]).unwrap();
        let bytes = write_tensors(&[("a".into(), Tensor::F32(a.clone())), ("ids".into(), Tensor::I64(ids.clone()))], None).unwrap();
        let st = parse(&bytes).unwrap();
        assert_eq!(read_f32("a", &st.tensor("a").unwrap()).unwrap(), a);
        assert_eq!(read_i64("ids", &st.tensor("ids").unwrap()).unwrap(), ids);
        // f16: 1.5 and -2.0
        let h: Vec<u8> = [1.5f32, -2.0].iter().flat_map(|v| half::f16::from_f32(*v).to_le_bytes()).collect();
        let v = TensorView::new(Dtype::F16, vec![2], &h).unwrap();
        assert_eq!(read_f32("h", &v).unwrap().as_slice().unwrap(), &[1.5, -2.0]);
        let nan: Vec<u8> = [1.0f32, f32::NAN].iter().flat_map(|v| v.to_le_bytes()).collect();
        let v = TensorView::new(Dtype::F32, vec![2], &nan).unwrap();
        let err = read_f32("w.nan", &v).unwrap_err().to_string();
        assert!(err.contains("w.nan") && err.contains("not finite"), "{err}");
    }
}
