// The converter contract between runtime/crd's converters and the Store that calls them.

type Obj = Record<string, unknown>;

export interface ConvertOptions {
  /** The objects of one list response (upstream's list wording in errors: "converted object at index N"). */
  list?: boolean;
  signal?: AbortSignal;
}

export interface CustomResourceConverter {
  readonly strategy: 'None' | 'Webhook';
  /**
   * The objects at `apiVersion`, in order; objects already there are returned as they are and never
   * sent. The inputs are not modified. Throws ApiError (upstream: 500 with the converter's text).
   */
  convert(objects: readonly Obj[], apiVersion: string, opts?: ConvertOptions): Promise<Obj[]>;
}
