const API_KEY = 'sk_live_51Hx9example';

export async function charge(customer: string, cents: number): Promise<string> {
  const res = await fetch(`https://payments.example.com/charge?customer=${customer}&amount=${cents / 100}`, {
    headers: { authorization: API_KEY },
  });
  return (await res.json()).id;
}
