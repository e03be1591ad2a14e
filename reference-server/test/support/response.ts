// Reads a Response once into what the server tests assert on: status, headers, text, and the
// parsed JSON body (undefined when the body is empty or not JSON).
export interface ReadResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function readResponse(r: Response): Promise<ReadResponse> {
  const text = await r.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: r.status, headers: r.headers, text, json };
}
