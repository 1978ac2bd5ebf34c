export const SHIPPED_MODEL_NAME = 'isnet-general-use';
